/**
 * Whatever went wrong inside Chromium as one readable RENDER_PDF_FAILED line, safe for any caller.
 */
import { PdfRenderError, isPdfRenderError } from '../errors.js';

// Whatever went wrong inside Chromium becomes one readable RENDER_PDF_FAILED line, safe for any
// caller: a net:: error name says what happened, but Chromium's own text may name local paths or
// internals, so it stays in the cause, for the operator's log.
export function asRenderError(error: unknown): PdfRenderError {
  if (isPdfRenderError(error)) return error;
  const detail = error instanceof Error ? error.message.split('\n')[0] : String(error);
  if (/Target closed|Session closed|Connection closed|browser has disconnected/i.test(detail ?? '')) {
    return new PdfRenderError(
      'RENDER_PDF_FAILED',
      'the browser closed while rendering the document (it crashed or was killed)',
      { cause: error },
    );
  }
  if (/Execution context was destroyed|navigat/i.test(detail ?? '')) {
    return new PdfRenderError(
      'RENDER_PDF_FAILED',
      'the document navigated away while it was being printed (a meta refresh, or a script or form changing the location)',
      { cause: error, documentFault: true },
    );
  }
  const netError = /net::ERR_[A-Z0-9_]+/.exec(detail ?? '')?.[0];
  return new PdfRenderError(
    'RENDER_PDF_FAILED',
    `Chromium could not render the document${netError ? ` (${netError})` : ''}`,
    { cause: error },
  );
}
