/**
 * The page limit, before the print where it can be (issue 31 §1). Chromium prints a document of
 * more pages than the limit only up to one page past it (chromiumPageRanges), but that is still the
 * limit's pages printed before the document fails: 17 s for a 2,100-page document against 7 s to
 * render 1,000. So the document's laid-out height, which the print's own settling reads anyway,
 * gives an estimate; only a document taller than the limit's pages pays for a probe: a print
 * of the one page past the limit, which costs Chromium's layout of the document but not the print of
 * its pages ("exceeds page count" when there is no such page); one twice as tall as the limit as
 * printing lays it out fails without it. The count of the printed PDF stays
 * the final check (forced page breaks make more pages than the height says).
 */
import { PdfRenderError } from '../../errors.js';
import type { Protocol } from 'puppeteer-core';
import type { Slot } from './page-pool.js';
import { printableCss } from './print-viewport.js';
import type { RenderRequest } from '../../request.js';

/** An estimate past this many times the limit fails without a probe. */
const surelyOver = 2;
/** Below this limit nothing is probed: printing the limit's pages costs about what the probe's own layout does. */
const minProbedLimit = 20;

/** A document found past the page limit before it was printed; the engine names the setting (pageLimitError). */
export class PageLimitPassed extends Error {
  constructor(
    readonly estimate: number,
    /** Whether the page past the limit was printed to tell (else the height alone told). */
    readonly probed: boolean,
  ) {
    super(`past the page limit: about ${estimate} pages`);
  }
}

/** Evaluates an expression in the page's print world (print-pdf.ts's inPrintWorld). */
export type Evaluate = (expression: string) => Promise<unknown>;

/** The error of a document with more pages than `maxPages` (named by `setting`), found before the print when `early` says so. */
export function pageLimitError(maxPages: number, setting: string, early?: PageLimitPassed): PdfRenderError {
  const found = early
    ? early.probed
      ? `: page ${maxPages + 1} exists (about ${early.estimate} pages by its height), found before printing it`
      : `: about ${early.estimate} pages by its height as printed, found before printing it`
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
  evaluate: Evaluate,
): Promise<void> {
  // A request for some pages prints no more than it asked for (within the limit).
  if (maxPages < minProbedLimit || request.singlePage || request.pageRanges) return;
  const pageHeight = printableCss(request).height;
  // As tall as the limit's pages or less: printed, and counted after (breaks may still add pages).
  if (Math.ceil(height / pageHeight) <= maxPages) return;
  // Taller: the height as printing lays it out (print media), without breaking it into pages.
  const estimate = Math.ceil((await printedHeight(slot, evaluate, height)) / pageHeight);
  // Pages only add to the height (what a break pushes on), save a collapsed margin at each break; a
  // document twice as tall as the limit's pages has more, unless its own @page size is larger.
  if (estimate >= maxPages * surelyOver && !request.preferCssPageSize) throw new PageLimitPassed(estimate, false);
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
  throw new PageLimitPassed(estimate, true);
}

const heightExpression =
  'Math.max(document.documentElement?.scrollHeight ?? 0, document.scrollingElement?.scrollHeight ?? 0)';

/** The document's height laid out for print media (unless the request emulates screen, which prints as it is). */
async function printedHeight(slot: Slot, evaluate: Evaluate, screenHeight: number): Promise<number> {
  const [media, features] = slot.media
    ? (JSON.parse(slot.media) as [string, Protocol.Emulation.MediaFeature[]])
    : ['', []];
  if (media === 'screen') return screenHeight;
  await slot.client.send('Emulation.setEmulatedMedia', { media: 'print', features });
  try {
    return Number(await evaluate(heightExpression)) || screenHeight;
  } finally {
    await slot.client.send('Emulation.setEmulatedMedia', { media, features });
  }
}
