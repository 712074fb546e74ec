/**
 * The page's viewport is the printable area of the request's paper (its width and height less the
 * margins, at the request's scale), so the document is laid out before printing as wide as it will
 * print: a script that sizes a chart to the window sizes it to the page, and content wider than
 * the page is found wider than the window (the report's overflow, inspect-document.ts). Chromium's
 * default would be 800 by 600 pixels, whatever the paper.
 */
import type { RenderRequest } from '../../request.js';
import type { Slot } from './page-pool.js';

/** CSS pixels per inch. */
export const pixelsPerInch = 96;

/** The printable area of `request`'s paper in CSS pixels, as printing lays the document out (fractions kept). */
export function printableCss(request: RenderRequest): { width: number; height: number } {
  const [paperWidth, paperHeight] = request.landscape
    ? [request.paperHeight, request.paperWidth]
    : [request.paperWidth, request.paperHeight];
  const css = (inches: number) => (inches * pixelsPerInch) / request.scale;
  return {
    width: css(paperWidth - request.marginLeft - request.marginRight),
    height: css(paperHeight - request.marginTop - request.marginBottom),
  };
}

/** The printable area of `request`'s paper in whole CSS pixels (at least one each way). */
export function printableArea(request: RenderRequest): { width: number; height: number } {
  const { width, height } = printableCss(request);
  return { width: Math.max(1, Math.floor(width)), height: Math.max(1, Math.floor(height)) };
}

/** Make the slot's viewport the request's printable area; sent only when it changes (pages keep it across documents). */
export async function setPrintViewport(slot: Slot, request: RenderRequest): Promise<void> {
  const { width, height } = printableArea(request);
  const viewport = `${width}x${height}`;
  if (slot.viewport === viewport) return;
  await slot.client.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile: false });
  slot.viewport = viewport;
}
