/**
 * The print a header and footer stamp is made of (document/template-stamp.ts): a blank document of
 * as many pages as the document it is for, printed with the request's templates, paper, margins and
 * scale, untagged (the stamp is marked when it is laid over a tagged page). It runs on a page the
 * engine holds between two documents, reset after the last one and reset again after this one, so
 * nothing of any document is on the page while the stamp is printed.
 */
import type { RenderRequest } from '../../request.js';
import type { Slot } from './page-pool.js';
import { writeDocument } from './print-document.js';
import { printPdf, type TemplatePair } from './print-pdf.js';

/** A blank document of `pages` pages printed with `templates` as `request` prints. */
export async function printStamp(
  slot: Slot,
  request: RenderRequest,
  templates: TemplatePair,
  pages: number,
): Promise<Uint8Array> {
  // The templates are a caller's: the page is not pristine from here on (page-state.ts).
  slot.state.taken();
  await writeDocument(slot, blankPages(pages));
  const blank = { ...request, tagged: false, outline: false, pageRanges: null, singlePage: false };
  return printPdf(slot, blank, templates, pages);
}

// One pixel on each page, so each page is laid out, and nothing drawn.
const blankPages = (pages: number) =>
  `<!doctype html><style>html, body { margin: 0; } div { height: 1px; } div + div { break-before: page; }</style>${'<div></div>'.repeat(pages)}`;
