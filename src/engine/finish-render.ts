/**
 * Every step after the print, in order, each under the render's deadline: the document finish
 * (document information, and for a tagged PDF its XMP and artifacts), page 1's own templates laid
 * in, and last the archival step (attachments, a Factur-X invoice, PDF/A), whose metadata states the
 * document information as the steps before left it.
 */
import type { RenderRequest } from '../request.js';
import { archiveWithin, needsArchiving } from './document/archive-finish.js';
import { needsDocumentFinish } from './document/document-finish.js';
import { facturXEmbedding } from './document/factur-x.js';
import { finishDocumentWithin, finishWithin } from './pages/finish-pdf.js';
import type { RenderReport } from './report/render-report.js';

/** What the finish needs of the render besides the request. */
export interface Rendered {
  pdf: Uint8Array;
  /** Page 1 printed with page 1's own templates, where the request has them. */
  firstPage?: Uint8Array;
  /** The print had a header or footer template. */
  templates: boolean;
  /** The language the document declared ('' for none; undefined when the page could not say). */
  declaredLang: string | undefined;
}

/** The finished PDF, what the report says of its accessibility, and what PDF/A needed mended (for the warnings). */
export async function finishRender(
  request: RenderRequest,
  rendered: Rendered,
  limitMs: number,
  signal: AbortSignal,
): Promise<{ pdf: Uint8Array; accessibility: RenderReport['accessibility']; mended: string[] }> {
  const facts = {
    tagged: request.tagged,
    templates: rendered.templates,
    metadata: request.metadata,
    declaredLang: rendered.declaredLang,
  };
  const finished = needsDocumentFinish(facts)
    ? await finishDocumentWithin(rendered.pdf, facts, limitMs, signal)
    : { pdf: rendered.pdf, accessibility: { tagged: false, pdfua: false, missing: [] } };
  // Page 1's own print has its templates marked as the document's are before it takes page 1's place.
  const firstPage =
    rendered.firstPage && facts.tagged
      ? (await finishDocumentWithin(rendered.firstPage, { ...facts, metadata: null }, limitMs, signal)).pdf
      : rendered.firstPage;
  const beforeArchive = firstPage ? await finishWithin(finished.pdf, { firstPage }, limitMs, signal) : finished.pdf;
  // A Factur-X invoice is a PDF/A-3b whatever `pdfa` says (the schema refuses PDF/A-2b with it),
  // its XML embedded beside the attachments and its schema in the XMP.
  const invoice = facturXEmbedding(request);
  const archiving = {
    pdfa: invoice ? ('PDF/A-3b' as const) : request.pdfa,
    attachments: request.attachments,
    files: invoice ? [invoice.file] : [],
    xmpExtensions: invoice ? [invoice.extension] : [],
  };
  const archived = needsArchiving(archiving)
    ? await archiveWithin(beforeArchive, archiving, limitMs, signal)
    : { pdf: beforeArchive, mended: [] };
  return { pdf: archived.pdf, accessibility: finished.accessibility, mended: archived.mended };
}
