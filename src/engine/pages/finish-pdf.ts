/**
 * What is done to Chromium's PDF after the print, only when a request asks for it: page 1's own
 * header and footer laid in, and document information written. With @cantoo/pdf-lib (the
 * maintained fork of pdf-lib: MIT, pure JavaScript, no native build, releases through 2026 where
 * pdf-lib's last was in 2021), as one incremental update: Chromium's bytes stay as they were and
 * the changes are appended after them. The library still parses the whole PDF to find its objects,
 * which costs time in proportion to its size, so this runs only when asked and within the render's
 * deadline.
 */
import { PdfRenderError, isPdfRenderError } from '../../errors.js';
import { raceAbort } from '../../race.js';
import type { PdfMetadata } from '../../request.js';
import { deadlineSignal } from '../deadline.js';

export interface Finishing {
  /** Page 1 printed with page 1's own templates, to show in place of the document's page 1. */
  firstPage?: Uint8Array;
  metadata?: PdfMetadata | null;
}

/** Whether `finishPdf` has anything to do: `metadata: {}` or an empty title changes nothing, so the PDF stays Chromium's. */
export const needsFinishing = ({ firstPage, metadata }: Finishing): boolean =>
  Boolean(firstPage || (metadata && Object.values(metadata).some((value) => value !== undefined && value !== null)));

/** `pdf` with page 1 replaced by `firstPage` and `metadata`'s fields set, where given. */
export async function finishPdf(pdf: Uint8Array, { firstPage, metadata }: Finishing): Promise<Uint8Array> {
  // Loaded only when a request asks for finishing: it is a large library that no other render
  // needs, and every cold start of the CLI would otherwise load and compile it.
  const { PDFDocument, PDFName } = await import('@cantoo/pdf-lib');
  const document = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  if (firstPage) {
    // Page 1 keeps its place, links and the outline's references to it; what it shows becomes the
    // other print of the same page, whose body was laid out the same way.
    const [printed] = await document.embedPdf(firstPage, [0]);
    const page = document.getPage(0);
    page.node.set(PDFName.of('Contents'), document.context.obj([]));
    page.node.set(PDFName.of('Resources'), document.context.obj({}));
    page.drawPage(printed!, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
  }
  if (metadata?.title) document.setTitle(metadata.title);
  if (metadata?.author) document.setAuthor(metadata.author);
  if (metadata?.subject) document.setSubject(metadata.subject);
  // One entry: pdf-lib joins a list with spaces, which would run "a" and "b c" together as "a b c".
  if (metadata?.keywords) document.setKeywords([metadata.keywords.join(', ')]);
  if (metadata?.creator) document.setCreator(metadata.creator);
  if (metadata?.creationDate) document.setCreationDate(metadata.creationDate);
  return document.commit();
}

/** Page 1's own templates and the metadata written into the PDF, under a deadline as long as the render's and the caller's cancel: its cost grows with the PDF. */
export const finishWithin = (pdf: Uint8Array, finishing: Finishing, limitMs: number, callerSignal: AbortSignal) =>
  withinDeadline(() => finishPdf(pdf, finishing), "page 1's own templates and the metadata", limitMs, callerSignal);

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
