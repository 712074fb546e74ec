/**
 * The archival step's work on the PDF (archive-finish.ts says when and why): pdf-lib loads it for an
 * incremental update, the files are embedded, PDF/A is written. This module and those it imports are
 * the only ones that import pdf-lib statically, and archive-finish.ts loads it with import() when a
 * request asks: so a render that does not ask never loads pdf-lib, and the CLI's bundle (where
 * pdf-lib is external: a static import becomes require() of its CommonJS build, an import() of the
 * package its ES build) has every object here from one copy of the library.
 */
import { PDFDocument } from '@cantoo/pdf-lib';
import type { Attachment } from '../../request-attachments.js';
import type { PdfaLevel } from '../../request-pdfa.js';
import { embedAttachments, embeddedFileOf, type EmbeddedFile } from './attachments.js';
import { makePdfa } from './pdfa.js';
import type { XmpExtension } from './xmp.js';

/** What the archival step is asked to do. */
export interface Archiving {
  pdfa: PdfaLevel | null;
  /** The request's attachments. */
  attachments: readonly Attachment[] | null;
  /** Files a finishing feature embeds besides the request's (Factur-X's invoice XML, say); dated now where they give no date. */
  files?: readonly (Omit<EmbeddedFile, 'modified'> & { modified?: Date })[];
  /** Schemas a finishing feature adds to the PDF/A XMP (Factur-X's, say). */
  xmpExtensions?: XmpExtension[];
}

/** `pdf` with the attachments (and `files`) embedded and, where asked, made PDF/A, dated `now`; and what PDF/A needed mended. */
export async function archiveDocument(
  pdf: Uint8Array,
  archiving: Archiving,
  now: Date,
): Promise<{ pdf: Uint8Array; mended: string[] }> {
  const document = await PDFDocument.load(pdf, { forIncrementalUpdate: true, updateMetadata: false });
  // A feature's own file (Factur-X's invoice) first in /AF, then the request's.
  const files = [
    ...(archiving.files ?? []).map((file) => ({ ...file, modified: file.modified ?? now })),
    ...(archiving.attachments ?? []).map((attachment) => embeddedFileOf(attachment, now)),
  ];
  embedAttachments(document, files);
  const { mended } = archiving.pdfa
    ? makePdfa(document, pdf, archiving.pdfa, now, { extensions: archiving.xmpExtensions })
    : { mended: [] };
  return { pdf: await document.commit(), mended };
}
