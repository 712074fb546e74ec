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
  // Chromium's print answers "Printing failed" with no reason when the renderer stops in the middle
  // of it: a renderer killed while it lays out a long table for printToPDF gives exactly that (6 of
  // 6 here, killed or its target closed), and the one at about 2,000 pages of one long table (48 s,
  // 15 GB) most likely ran out of memory. Nothing else under 2 GB made Chromium say it (empty printable
  // area, 0.01in and 400,000in paper, 20 MB and script-looping templates, bad page ranges, 20,000
  // forced pages all get answers of their own). "shared memory" failures are the PDF's hand-over.
  // Not the document's fault for sure (its renderer may have been killed from outside): an async job
  // is tried again; a document too large for memory is stopped by the memory limit first anyway.
  if (/Printing failed|shared memory/i.test(detail ?? '')) {
    return new PdfRenderError(
      'RENDER_PDF_FAILED',
      'the document could not be printed: Chromium\'s renderer stopped in the middle of the print (Chromium says only "Printing failed"), as it does when a document is too large to print in one piece (one table of thousands of rows runs it out of memory); split it into several documents (pageRanges does not help: Chromium lays the whole document out first)',
      { cause: error },
    );
  }
  const netError = /net::ERR_[A-Z0-9_]+/.exec(detail ?? '')?.[0];
  return new PdfRenderError(
    'RENDER_PDF_FAILED',
    `Chromium could not render the document${netError ? ` (${netError})` : ''}`,
    { cause: error },
  );
}
