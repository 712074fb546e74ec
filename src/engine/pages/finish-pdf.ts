/**
 * What is done to Chromium's PDF after the print. Every render: the document finish
 * (document-finish.ts, its own small update). Only when a request asks for it: page 1's own
 * header and footer laid in, with @cantoo/pdf-lib (the
 * maintained fork of pdf-lib: MIT, pure JavaScript, no native build, releases through 2026 where
 * pdf-lib's last was in 2021), as one incremental update: Chromium's bytes stay as they were and
 * the changes are appended after them. The library still parses the whole PDF to find its objects,
 * which costs time in proportion to its size, so this runs only when asked and within the render's
 * deadline.
 */
import { PdfRenderError, isPdfRenderError } from '../../errors.js';
import { raceAbort } from '../../race.js';
import { deadlineSignal } from '../deadline.js';
import { finishDocument, type DocumentFacts } from '../document/document-finish.js';

export interface Finishing {
  /** Page 1 printed with page 1's own templates, to show in place of the document's page 1. */
  firstPage?: Uint8Array;
}

/** `pdf` with page 1 replaced by `firstPage`, where given. */
export async function finishPdf(pdf: Uint8Array, { firstPage }: Finishing): Promise<Uint8Array> {
  // Loaded only when a request asks for finishing: it is a large library that no other render
  // needs, and every cold start of the CLI would otherwise load and compile it.
  const { PDFDocument, PDFName } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  if (firstPage) {
    // Page 1 keeps its place, links, the outline's references to it and its place in the structure
    // tree; what it shows becomes the other print of the same page, whose body was laid out, and
    // tagged, the same way: its content stream and resources are copied in as they are (not drawn
    // as a form, whose marked content the structure tree could not point into), so the structure
    // tree's marked-content IDs for page 1 find the same content in it.
    const printed = await PDFDocument.load(firstPage, { updateMetadata: false });
    const [copied] = await document.copyPages(printed, [0]);
    const page = document.getPage(0);
    for (const key of ['Contents', 'Resources'])
      page.node.set(PDFName.of(key), copied!.node.get(PDFName.of(key)) ?? document.context.obj({}));
  }
  return document.commit();
}

/** The document finish (document-finish.ts), under a deadline as long as the render's and the caller's cancel. */
export const finishDocumentWithin = (
  pdf: Uint8Array,
  facts: DocumentFacts,
  limitMs: number,
  callerSignal: AbortSignal,
) => withinDeadline((signal) => finishDocument(pdf, facts, signal), 'the document information', limitMs, callerSignal);

/** Page 1's own templates written into the PDF, under a deadline as long as the render's and the caller's cancel: its cost grows with the PDF. */
export const finishWithin = (pdf: Uint8Array, finishing: Finishing, limitMs: number, callerSignal: AbortSignal) =>
  withinDeadline(() => finishPdf(pdf, finishing), "page 1's own templates", limitMs, callerSignal);

/** `work` under its own deadline and the caller's cancel; its failure a RENDER_PDF_FAILED naming `what`. */
export async function withinDeadline<T>(
  work: (signal: AbortSignal) => Promise<T>,
  what: string,
  limitMs: number,
  callerSignal: AbortSignal,
): Promise<T> {
  const deadline = deadlineSignal(limitMs, `writing ${what} into the PDF did not finish in time`);
  const signal = AbortSignal.any([deadline.signal, callerSignal]);
  return raceAbort(work(signal), signal)
    .catch((error: unknown) => {
      throw isPdfRenderError(error)
        ? error
        : new PdfRenderError('RENDER_PDF_FAILED', `${what} could not be written into the PDF`, { cause: error });
    })
    .finally(deadline.clear);
}
