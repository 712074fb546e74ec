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
  // Chromium's print answers "Printing failed" (or names a shared memory region it could not make)
  // with no reason; a run into it at about 2,000 pages of one long table (48 s, 15 GB) had run out
  // of room for the document's layout or its PDF. Nothing smaller made Chromium say it here (empty
  // printable area, tiny or 400,000in paper, huge templates, 20,000 forced pages all get their own
  // answers), so the reason given is the one known, and what helps.
  if (/Printing failed|shared memory/i.test(detail ?? '')) {
    return new PdfRenderError(
      'RENDER_PDF_FAILED',
      'Chromium could not print the document and gave no reason ("Printing failed"): it does so when a document is too large to print in one piece (its layout or its PDF outgrew the memory Chromium can give a print, as a table of thousands of rows does); split it into several documents, or print it in parts with pageRanges',
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
