/**
 * The one error type of pdfrender. Every failure that reaches a user carries a code;
 * the edges (CLI exit codes, HTTP statuses) map codes in one place each, here.
 */

export type ErrorCode =
  /** The request (flags, JSON file, HTTP body) has invalid fields; `fieldErrors` names them. */
  | 'VALIDATION_FAILED'
  /** Wrong command-line usage that is not a field of the request (unknown file, conflicting flags). */
  | 'USAGE'
  /** No Chromium could be found or launched. */
  | 'BROWSER_NOT_FOUND'
  /** This document could not be rendered: deadline, crash, Chromium refused it. */
  | 'RENDER_PDF_FAILED'
  /** HTTP: API keys are configured and the request has none, or a wrong one. */
  | 'MISSING_API_KEY'
  | 'INVALID_API_KEY'
  /** HTTP: the caller used up its render-sync requests for this window. */
  | 'RATE_LIMITED'
  /** HTTP: the body is over --max-body, or of a content type the API does not take. */
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  /** HTTP: no such route or file, or a route that does not take this method. */
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  /** HTTP: a server on loopback without --public-url got a Host that is not this machine's (DNS rebinding). */
  | 'HOST_NOT_ALLOWED'
  /** HTTP: a browser page of another site (Origin or Sec-Fetch-Site) asked to change something; --cors-origin allows origins. */
  | 'CROSS_SITE_REQUEST'
  /** HTTP: the server is stopping and takes no new work. */
  | 'SHUTTING_DOWN'
  /** Async: the same caller sent the same identifier within the dedupe window. */
  | 'DUPLICATE_IDENTIFIER'
  /** Async: no webhook endpoint is configured, so nobody would hear of the result. */
  | 'WEBHOOK_NOT_CONFIGURED'
  /** Async: the queue holds --max-queue jobs already. */
  | 'QUEUE_FULL'
  /** HTTP: every page stayed busy with other renders for --page-wait; the render was not started. */
  | 'BROWSER_BUSY'
  /** The data dir's file system is full (or over its quota): nothing more can be stored until space is freed. */
  | 'STORAGE_FULL'
  /** The data dir cannot be used: missing, replaced, read-only, not a folder, or its database unreadable. */
  | 'STORAGE_UNAVAILABLE'
  /** Another process held the database's write lock for longer than --busy-timeout. */
  | 'DATABASE_BUSY'
  /** Async: the database stopped answering after the enqueue reached it; whether the job was queued is not known (the same request again is safe). */
  | 'OUTCOME_UNKNOWN'
  /** Anything that is not a PdfRenderError: the caller gets a generic message, the operator's log the cause. */
  | 'INTERNAL_ERROR';

/** Field name to its problems, as the HTTP API reports them (`errors: {field: [messages]}`). */
export type FieldErrors = Record<string, string[]>;

/** An error with a code, a message safe to show the user, and optionally its field errors. */
export class PdfRenderError extends Error {
  readonly code: ErrorCode;
  readonly fieldErrors?: FieldErrors;

  /** Seconds after which the caller may try again (rate limit, shutdown). */
  readonly retryAfter?: number;

  /** What the caller is not told and the operator's log is (what a refused name resolved to, a DNS error). */
  readonly detail?: string;

  /** The preflight report (a RenderReport, engine/report/render-report.ts: basics import nothing above them) of a render that a failOn rule failed: the caller gets it with the error; read it with reportOf. */
  readonly report?: unknown;

  /**
   * Set where the engine knows the failure is the document's own (its deadline passed, a wait never
   * met, a failOn rule, too many pages): the same document would fail the same way again, so a
   * queued job is not retried. Unset for what another try may mend (the browser died, a server
   * did not answer).
   */
  readonly documentFault?: true;

  constructor(
    code: ErrorCode,
    message: string,
    options: {
      cause?: unknown;
      fieldErrors?: FieldErrors;
      retryAfter?: number;
      detail?: string;
      report?: unknown;
      documentFault?: boolean;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'PdfRenderError';
    this.code = code;
    if (options.fieldErrors) this.fieldErrors = options.fieldErrors;
    if (options.retryAfter !== undefined) this.retryAfter = options.retryAfter;
    if (options.detail !== undefined) this.detail = options.detail;
    if (options.report !== undefined) this.report = options.report;
    if (options.documentFault) this.documentFault = true;
  }
}

/** True when `error` is a PdfRenderError, optionally with the given code. */
export function isPdfRenderError(error: unknown, code?: ErrorCode): error is PdfRenderError {
  return error instanceof PdfRenderError && (code === undefined || error.code === code);
}

// Codes only the server raises never reach the CLI; they map to 1 for completeness.
const exitCodes: Record<ErrorCode, number> = {
  RENDER_PDF_FAILED: 1,
  VALIDATION_FAILED: 2,
  USAGE: 2,
  BROWSER_NOT_FOUND: 2,
  MISSING_API_KEY: 1,
  INVALID_API_KEY: 1,
  RATE_LIMITED: 1,
  PAYLOAD_TOO_LARGE: 1,
  UNSUPPORTED_MEDIA_TYPE: 1,
  NOT_FOUND: 1,
  METHOD_NOT_ALLOWED: 1,
  HOST_NOT_ALLOWED: 1,
  CROSS_SITE_REQUEST: 1,
  SHUTTING_DOWN: 1,
  DUPLICATE_IDENTIFIER: 1,
  WEBHOOK_NOT_CONFIGURED: 1,
  QUEUE_FULL: 1,
  BROWSER_BUSY: 1,
  // At start (serve, webhooks) an unusable data dir is a set-up error.
  STORAGE_FULL: 2,
  STORAGE_UNAVAILABLE: 2,
  DATABASE_BUSY: 1,
  OUTCOME_UNKNOWN: 1,
  INTERNAL_ERROR: 1,
};

const httpStatuses: Record<
  ErrorCode,
  400 | 401 | 402 | 403 | 404 | 405 | 412 | 413 | 415 | 421 | 422 | 429 | 500 | 503 | 504 | 507
> = {
  RENDER_PDF_FAILED: 400,
  VALIDATION_FAILED: 422,
  USAGE: 422,
  BROWSER_NOT_FOUND: 503,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  HOST_NOT_ALLOWED: 421,
  CROSS_SITE_REQUEST: 403,
  SHUTTING_DOWN: 503,
  DUPLICATE_IDENTIFIER: 402,
  WEBHOOK_NOT_CONFIGURED: 412,
  QUEUE_FULL: 503,
  BROWSER_BUSY: 503,
  STORAGE_FULL: 507,
  STORAGE_UNAVAILABLE: 503,
  DATABASE_BUSY: 503,
  // As a gateway's 504: the answer did not come back in time, so what happened is not known.
  OUTCOME_UNKNOWN: 504,
  INTERNAL_ERROR: 500,
};

/** What a caller is told of any error: a PdfRenderError's code and message (written to be safe), else a generic one. */
export function callerError(error: unknown): { code: ErrorCode; message: string } {
  if (error instanceof PdfRenderError) return { code: error.code, message: error.message };
  // A raw error's message may hold data-dir paths, addresses or library internals.
  return { code: 'INTERNAL_ERROR', message: "pdfrender failed unexpectedly; the cause is in the operator's log" };
}

/** Every error code. */
export const errorCodes = Object.keys(httpStatuses) as ErrorCode[];

/** The HTTP status for an error code (the API's `outcome` is the code itself). */
export function httpStatusFor(code: ErrorCode) {
  return httpStatuses[code];
}

/** The CLI exit code for an error: 1 a document failed to render, 2 usage, validation or set-up. */
export function exitCodeFor(error: unknown): number {
  return error instanceof PdfRenderError ? exitCodes[error.code] : 1;
}

/**
 * A validation error that names what set each bad field (`--max-pages`, `--port (PDFRENDER_PORT)`,
 * `scale in req.json`) as `label` says, else the field: one line per problem, repeats once.
 */
export function labelFieldErrors(
  fieldErrors: FieldErrors,
  label: (field: string) => string | undefined,
): PdfRenderError {
  const lines = Object.entries(fieldErrors).flatMap(([field, messages]) =>
    messages.map((message) => `${label(field) ?? field}: ${message}`),
  );
  return new PdfRenderError('VALIDATION_FAILED', [...new Set(lines)].join('\n'), { fieldErrors });
}

/** An error and its causes as lines: each one's stack (or message), "caused by:" between them. */
export function causeLines(error: unknown): string[] {
  return causeChain(error).flatMap((current, depth) => [
    ...(depth > 0 ? ['caused by:'] : []),
    ...(current instanceof Error ? (current.stack ?? `${current.name}: ${current.message}`) : String(current)).split(
      '\n',
    ),
  ]);
}

/** `error` and its causes, outermost first: at most five, ending at the first that is not an Error (or none, for undefined). */
export function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (
    let current = error;
    current !== undefined && chain.length < 5;
    current = current instanceof Error ? current.cause : undefined
  )
    chain.push(current);
  return chain;
}
