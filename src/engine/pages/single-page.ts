/**
 * singlePage: the whole document on one page as tall as its content. The content's height is
 * measured as printing would lay it out (at the printable width divided by the scale, under print
 * media unless the request emulates screen; a document wider than that as Chromium shrinks it), and
 * the page is made that tall times the scale, plus the vertical margins; its forced page breaks are
 * ignored as it prints (page-breaks.ts). The window is laid out at that width only for the
 * measurement: no animation frame runs meanwhile (frame-gate.ts), so the document's script sees no
 * resize.
 */
import { PdfRenderError } from '../../errors.js';
import type { Protocol } from 'puppeteer-core';
import type { RenderRequest } from '../../request.js';
import type { Slot } from './page-pool.js';
import { inPrintWorld, settleForPrint } from './print-pdf.js';
import { pixelsPerInch as cssPxPerInch, printableCss, setPrintViewport } from './print-viewport.js';

/**
 * The tallest page Chromium prints: 2^25 CSS px (about 349 525in), the range of its layout units.
 * Layout stops there (a taller document measures 2^25), and a taller page is cut to it, the rest
 * going onto a second page.
 */
export const maxSinglePagePx = 2 ** 25;

/**
 * How much wider than the page Chromium lays out a document that overflows it, shrinking it to fit
 * (found by printing blocks 900 to 3000px wide on an 816px page: shrunk by 1.103, 1.226, 1.471, then
 * never past 1.5).
 */
const maxShrink = 1.5;

// Forces layout (web fonts start loading only once it asks for them), then waits for them.
const contentSize = `void document.documentElement?.offsetHeight, document.fonts.ready.then(() => {
  const root = document.documentElement, scrolling = document.scrollingElement;
  return [Math.max(root?.scrollWidth ?? 0, scrolling?.scrollWidth ?? 0), Math.max(root?.scrollHeight ?? 0, scrolling?.scrollHeight ?? 0)];
})`;

/**
 * The request as it prints the slot's document on one page: as wide as its page would be (the paper
 * height with landscape), as tall as the content and the margins, and no longer landscape (which
 * would swap the two again).
 */
export async function singlePageRequest(slot: Slot, request: RenderRequest, maxPages: number): Promise<RenderRequest> {
  const paperWidth = request.landscape ? request.paperHeight : request.paperWidth;
  // The width printing lays the document out at.
  const pageWidth = printableCss(request).width;
  await settleForPrint(slot);
  // The media printDocument has the page emulate, put back after the measurement (as the window is).
  const [media, features] = slot.media
    ? (JSON.parse(slot.media) as [string, Protocol.Emulation.MediaFeature[]])
    : ['', []];
  // Laid out `width` wide and one pixel high (a document shorter than the window would measure as
  // tall as the window); rounded down, as a narrower layout is never shorter, so the content cannot
  // spill onto a second page.
  const sizeAt = async (width: number) => {
    slot.viewport = ''; // no longer the printable area, for setPrintViewport
    await slot.client.send('Emulation.setDeviceMetricsOverride', {
      width: Math.max(1, Math.floor(width)),
      height: 1,
      deviceScaleFactor: 1,
      mobile: false,
    });
    return (await inPrintWorld(slot, contentSize)) as [number, number];
  };
  let measured: number;
  let saturated: boolean;
  try {
    await slot.client.send('Emulation.setEmulatedMedia', { media: media || 'print', features });
    const [contentWidth, height] = await sizeAt(pageWidth);
    saturated = height >= maxSinglePagePx;
    measured = Math.max(1, height);
    // Wider than the page: printing lays it out again wider, up to maxShrink times, and shrinks it to the page.
    if (contentWidth > pageWidth) {
      const wider = Math.min(contentWidth, pageWidth * maxShrink);
      const [, widerHeight] = await sizeAt(wider);
      saturated ||= widerHeight >= maxSinglePagePx;
      measured = Math.max(1, (widerHeight * pageWidth) / wider);
    }
  } finally {
    await slot.client.send('Emulation.setEmulatedMedia', { media, features });
    await setPrintViewport(slot, request);
  }
  const pagePx = measured * request.scale + (request.marginTop + request.marginBottom) * cssPxPerInch;
  if (saturated || pagePx > maxSinglePagePx)
    throw new PdfRenderError(
      'RENDER_PDF_FAILED',
      `singlePage: the document is ${saturated ? 'at least ' : ''}${Math.round(pagePx / cssPxPerInch)}in tall with its margins, past the tallest page Chromium prints (${Math.floor(maxSinglePagePx / cssPxPerInch)}in, 2^25 CSS pixels); print it without singlePage`,
      { documentFault: true },
    );
  // One page as tall as many costs as much to print and keep: it counts as that many against the page
  // limit, as the same document printed without singlePage would.
  const paperHeight = request.landscape ? request.paperWidth : request.paperHeight;
  const pagesTall = Math.ceil(pagePx / (paperHeight * cssPxPerInch));
  if (pagesTall > maxPages)
    throw new PdfRenderError(
      'RENDER_PDF_FAILED',
      `singlePage: the document is as tall as ${pagesTall} pages of its paper, past the page limit of ${maxPages}`,
      { documentFault: true },
    );
  return { ...request, landscape: false, paperWidth, paperHeight: pagePx / cssPxPerInch };
}
