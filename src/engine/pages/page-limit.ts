/**
 * The page limit, before the print where it can be (issue 31 §1). Chromium prints a document of
 * more pages than the limit only up to one page past it (chromiumPageRanges), but that is still the
 * limit's pages printed before the document fails: 17 s for a 2,100-page document against 7 s to
 * render 1,000. So the document's laid-out height, which the print's own settling reads anyway,
 * gives an estimate; only a document taller than the limit's pages pays for a probe: a print
 * of the one page past the limit, which costs Chromium's layout of the document but not the print of
 * its pages ("exceeds page count" when there is no such page). The probe decides, never the height
 * alone: Chromium shrinks a page wider than the paper (an @page size, zoom, landscape) to fit, so a
 * document can be many times taller than the limit's pages and print within it. The count of the
 * printed PDF stays the final check (forced page breaks make more pages than the height says).
 */
import { PdfRenderError } from '../../errors.js';
import type { Protocol } from 'puppeteer-core';
import type { Slot } from './page-pool.js';
import { printableCss } from './print-viewport.js';
import type { RenderRequest } from '../../request.js';

/** Below this limit nothing is probed: printing the limit's pages costs about what the probe's own layout does. */
const minProbedLimit = 20;

/** A document found past the page limit before it was printed; the engine names the setting (pageLimitError). */
export class PageLimitPassed extends Error {
  constructor(readonly estimate: number) {
    super(`past the page limit: about ${estimate} pages`);
  }
}

/** The error of a document with more pages than `maxPages` (named by `setting`), found before the print when `early` says so. */
export function pageLimitError(maxPages: number, setting: string, early?: PageLimitPassed): PdfRenderError {
  const found = early
    ? `: page ${maxPages + 1} exists (about ${early.estimate} pages by its height), found before printing it`
    : '';
  return new PdfRenderError(
    'RENDER_PDF_FAILED',
    `the document has more pages than the limit of ${maxPages} (${setting})${found}`,
    { documentFault: true },
  );
}

/**
 * Throw PageLimitPassed when the slot's document, `height` CSS pixels tall as laid out now, has more
 * than `maxPages` pages printed with `params`; a document whose height puts it well under the limit
 * costs nothing more.
 */
export async function refuseOverLimit(
  slot: Slot,
  request: RenderRequest,
  params: Protocol.Page.PrintToPDFRequest,
  maxPages: number,
  height: number,
): Promise<void> {
  // A request for some pages prints no more than it asked for (within the limit).
  if (maxPages < minProbedLimit || request.singlePage || request.pageRanges) return;
  const pageHeight = printableCss(request).height;
  // As tall as the limit's pages or less: printed, and counted after (breaks may still add pages).
  // Taller: the probe decides (it sees what print media or a page shrunk to fit the paper change).
  const estimate = Math.ceil(height / pageHeight);
  if (estimate <= maxPages) return;
  // The page past the limit alone, without what only the real print needs (templates, tags, outline).
  const probe = await slot.client
    .send('Page.printToPDF', {
      ...params,
      pageRanges: String(maxPages + 1),
      displayHeaderFooter: false,
      generateTaggedPDF: false,
      generateDocumentOutline: false,
    })
    .catch((error: unknown) => {
      if (/exceeds page count/i.test(String(error))) return undefined;
      throw error;
    });
  if (!probe) return;
  if (probe.stream) void slot.client.send('IO.close', { handle: probe.stream }).catch(() => undefined);
  throw new PageLimitPassed(estimate);
}
