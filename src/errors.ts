/**
 * The one error type of pdfrender. Every failure that reaches a user carries a code;
 * the edges (CLI exit codes now, HTTP statuses later) map codes in one place each.
 */

export type ErrorCode =
  /** The request (flags, JSON file, HTTP body) has invalid fields; `fieldErrors` names them. */
  | 'VALIDATION_FAILED'
  /** Wrong command-line usage that is not a field of the request (unknown file, conflicting flags). */
  | 'USAGE'
  /** No Chromium could be found or launched. */
  | 'BROWSER_NOT_FOUND'
  /** This document could not be rendered: deadline, crash, Chromium refused it. */
  | 'RENDER_PDF_FAILED';

/** Field name to its problems, as the HTTP API reports them (`errors: {field: [messages]}`). */
export type FieldErrors = Record<string, string[]>;

/** An error with a code, a message safe to show the user, and optionally its field errors. */
export class PdfRenderError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors?: FieldErrors;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; fieldErrors?: FieldErrors } = {}) {
    super(message, { cause: options.cause });
    this.name = 'PdfRenderError';
    this.code = code;
    if (options.fieldErrors) this.fieldErrors = options.fieldErrors;
  }
}

/** True when `error` is a PdfRenderError, optionally with the given code. */
export function isPdfRenderError(error: unknown, code?: ErrorCode): error is PdfRenderError {
  return error instanceof PdfRenderError && (code === undefined || error.code === code);
}

const exitCodes: Record<ErrorCode, number> = {
  RENDER_PDF_FAILED: 1,
  VALIDATION_FAILED: 2,
  USAGE: 2,
  BROWSER_NOT_FOUND: 2,
};

/** The CLI exit code for an error: 1 a document failed to render, 2 usage, validation or set-up. */
export function exitCodeFor(error: unknown): number {
  return error instanceof PdfRenderError ? exitCodes[error.code] : 1;
}

/** One readable line per field problem, e.g. `paperWidth: must be a length ...`. */
export function describeFieldErrors(fieldErrors: FieldErrors): string[] {
  return Object.entries(fieldErrors).flatMap(([field, messages]) => messages.map((m) => `${field}: ${m}`));
}
