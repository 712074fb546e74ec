/**
 * The archival step of the finish, last of all, only when a request asks for it: the attachments
 * embedded and the PDF made PDF/A, with @cantoo/pdf-lib as one incremental update of its own after
 * whatever the earlier steps wrote (document information, XMP, page 1's templates), so that the
 * PDF/A metadata states the document information as those steps left it. The library parses the
 * whole PDF, which costs time in proportion to its size: opt-in, and under the render's deadline.
 */
// Imported as attachments.ts and pdfa.ts import it, not with import(): in the CLI's bundle their
// static imports are require()s of pdf-lib's CommonJS build while import() loads its ES build, two
// copies whose objects do not know each other (the trailer's /ID and every hex string were written
// as dictionaries, "<< /value /cc61... >>": qpdf --check warned, pdfdetach found no file specification).
import { PDFDocument } from '@cantoo/pdf-lib';
import type { Attachment } from '../../request-attachments.js';
import type { PdfaLevel } from '../../request-pdfa.js';
import { withinDeadline } from '../pages/finish-pdf.js';
import { embedAttachments, embeddedFileOf, type EmbeddedFile } from './attachments.js';
import { makePdfa } from './pdfa.js';
import type { XmpExtension } from './xmp.js';

export interface Archiving {
  pdfa: PdfaLevel | null;
  /** The request's attachments. */
  attachments: readonly Attachment[] | null;
  /** Files a finishing feature embeds besides the request's (Factur-X's invoice XML, say); dated now where they give no date. */
  files?: readonly (Omit<EmbeddedFile, 'modified'> & { modified?: Date })[];
  /** Schemas a finishing feature adds to the PDF/A XMP (Factur-X's, say). */
  xmpExtensions?: XmpExtension[];
}

/** Whether `archivePdf` has anything to do. */
export const needsArchiving = ({ pdfa, attachments, files }: Archiving): boolean =>
  Boolean(pdfa || attachments?.length || files?.length);

/** `pdf` with the attachments (and `files`) embedded and, where asked, made PDF/A, dated `now`; and what PDF/A needed mended (for the render's warnings). */
export async function archivePdf(
  pdf: Uint8Array,
  archiving: Archiving,
  now = new Date(),
): Promise<{ pdf: Uint8Array; mended: string[] }> {
  const document = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  const files = [
    ...(archiving.attachments ?? []).map((attachment) => embeddedFileOf(attachment, now)),
    ...(archiving.files ?? []).map((file) => ({ ...file, modified: file.modified ?? now })),
  ];
  embedAttachments(document, files);
  const { mended } = archiving.pdfa
    ? makePdfa(document, pdf, archiving.pdfa, now, { extensions: archiving.xmpExtensions })
    : { mended: [] };
  return { pdf: await document.commit(), mended };
}

/** archivePdf under a deadline as long as the render's and the caller's cancel (withinDeadline). */
export const archiveWithin = (pdf: Uint8Array, archiving: Archiving, limitMs: number, callerSignal: AbortSignal) =>
  withinDeadline(() => archivePdf(pdf, archiving), 'the attachments and PDF/A', limitMs, callerSignal);
