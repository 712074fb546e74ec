/**
 * The archival step of the finish, last of all, only when a request asks for it: the attachments
 * embedded and the PDF made PDF/A, with @cantoo/pdf-lib as one incremental update of its own after
 * whatever the earlier steps wrote (document information, XMP, page 1's templates), so that the
 * PDF/A metadata states the document information as those steps left it. The library parses the
 * whole PDF, which costs time in proportion to its size: opt-in, and under the render's deadline;
 * the work itself is in archive-document.ts, loaded only then.
 */
import { withinDeadline } from '../pages/finish-pdf.js';
import type { Archiving } from './archive-document.js';

export type { Archiving } from './archive-document.js';

/** Whether `archivePdf` has anything to do. */
export const needsArchiving = ({ pdfa, attachments, files }: Archiving): boolean =>
  Boolean(pdfa || attachments?.length || files?.length);

/** `pdf` with the attachments (and `files`) embedded and, where asked, made PDF/A, dated `now`; and what PDF/A needed mended (for the render's warnings). */
export async function archivePdf(
  pdf: Uint8Array,
  archiving: Archiving,
  now = new Date(),
): Promise<{ pdf: Uint8Array; mended: string[] }> {
  // Loaded only when asked for (archive-document.ts says why): pdf-lib with it.
  const { archiveDocument } = await import('./archive-document.js');
  return archiveDocument(pdf, archiving, now);
}

/** archivePdf under a deadline as long as the render's and the caller's cancel (withinDeadline). */
export const archiveWithin = (pdf: Uint8Array, archiving: Archiving, limitMs: number, callerSignal: AbortSignal) =>
  withinDeadline(() => archivePdf(pdf, archiving), 'the attachments and PDF/A', limitMs, callerSignal);
