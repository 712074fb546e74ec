/**
 * What is done to Chromium's PDF after the print, only when a request asks for it: page 1's own
 * header and footer laid in, and document information written. With @cantoo/pdf-lib (the
 * maintained fork of pdf-lib: MIT, pure JavaScript, no native build, releases through 2026 where
 * pdf-lib's last was in 2021), as one incremental update: Chromium's bytes stay as they were and
 * the changes are appended after them. The library still parses the whole PDF to find its objects,
 * which costs time in proportion to its size, so this runs only when asked and within the render's
 * deadline.
 */
// Imported as document/attachments.ts and document/pdfa.ts import it: in the CLI's bundle a static
// import is a require() of pdf-lib's CommonJS build and import() loads its ES build, two copies whose
// objects do not know each other (a PDFHexString of one was written as a dictionary by the other).
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { PdfRenderError, isPdfRenderError } from '../../errors.js';
import { raceAbort } from '../../race.js';
import type { PdfMetadata } from '../../request.js';
import type { Attachment } from '../../request-attachments.js';
import type { PdfaLevel } from '../../request-pdfa.js';
import { deadlineSignal } from '../deadline.js';
import { embedAttachments, embeddedFileOf } from '../document/attachments.js';
import { makePdfa } from '../document/pdfa.js';
import type { FacturXEmbedding } from '../document/factur-x.js';

export interface Finishing {
  /** Page 1 printed with page 1's own templates, to show in place of the document's page 1. */
  firstPage?: Uint8Array;
  metadata?: PdfMetadata | null;
  pdfa?: PdfaLevel | null;
  attachments?: readonly Attachment[] | null;
  /** A Factur-X invoice's XML and XMP schema (document/factur-x.ts), embedded beside the attachments. */
  invoice?: FacturXEmbedding | null;
}

/** Whether `finishPdf` has anything to do: `metadata: {}` or an empty title changes nothing, so the PDF stays Chromium's. */
export const needsFinishing = ({ firstPage, metadata, pdfa, attachments, invoice }: Finishing): boolean =>
  Boolean(
    firstPage ||
    pdfa ||
    invoice ||
    attachments?.length ||
    (metadata && Object.values(metadata).some((value) => value !== undefined && value !== null)),
  );

/** `pdf` with page 1 replaced by `firstPage`, `metadata`'s fields set, the attachments embedded and PDF/A written, where asked. */
export async function finishPdf(
  pdf: Uint8Array,
  { firstPage, metadata, pdfa, attachments, invoice }: Finishing,
  now = new Date(),
): Promise<Uint8Array> {
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
  const files = [
    ...(invoice ? [{ ...invoice.file, modified: now }] : []),
    ...(attachments ?? []).map((attachment) => embeddedFileOf(attachment, now)),
  ];
  if (files.length > 0) embedAttachments(document, files);
  // Last: the XMP states the Info dictionary as the steps above left it.
  if (pdfa) makePdfa(document, pdf, pdfa, now, { extensions: invoice ? [invoice.extension] : [] });
  return document.commit();
}

/** Page 1's own templates and the metadata written into the PDF, under a deadline as long as the render's and the caller's cancel: its cost grows with the PDF. */
export async function finishWithin(
  pdf: Uint8Array,
  finishing: Parameters<typeof finishPdf>[1],
  limitMs: number,
  callerSignal: AbortSignal,
): Promise<Uint8Array> {
  const finishDeadline = deadlineSignal(
    limitMs,
    "the PDF was not finished in time (page 1's own templates, the metadata, attachments or PDF/A)",
  );
  return raceAbort(finishPdf(pdf, finishing), AbortSignal.any([finishDeadline.signal, callerSignal]))
    .catch((error: unknown) => {
      throw isPdfRenderError(error)
        ? error
        : new PdfRenderError(
            'RENDER_PDF_FAILED',
            "the PDF could not be finished (page 1's own templates, the metadata, attachments or PDF/A)",
            { cause: error },
          );
    })
    .finally(finishDeadline.clear);
}
