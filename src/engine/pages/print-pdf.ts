/**
 * Chromium's printToPDF in as few DevTools round trips as it takes. Puppeteer's page.pdf() waits
 * for fonts, then has the PDF streamed in chunks of its choosing (printToPDF, two IO.read and an
 * IO.close, four round trips after the fonts). Here a document's PDF comes in one round trip of
 * large reads, and the stream is closed without waiting. It still comes as a stream rather than
 * whole in printToPDF's answer: a PDF of hundreds of MB in one DevTools message would be a string
 * too large for Node to make, and would break the connection every other render shares.
 */
import type { Protocol } from 'puppeteer-core';
import { PdfRenderError } from '../../errors.js';
import { chromiumPageRanges, pageRangesOf } from '../../page-ranges.js';
import type { RenderRequest } from '../../request.js';
import { withoutPageBreaks } from './page-breaks.js';
import { refuseOverLimit } from './page-limit.js';
import type { Slot } from './page-pool.js';

// The world fonts are awaited in: the document's own script cannot reach it, and what runs there is
// never the document's (page-state.ts counts only the main world's scripts).
const worldName = 'pdfrender-print';
// Layout is forced first: with no screen frames (frame-gate.ts) nothing else may have laid the
// document out yet, and web fonts start loading only once layout asks for them.
// Answers the document's height, which the page limit's estimate reads (page-limit.ts).
const fontsReady =
  'void document.documentElement?.offsetHeight, document.fonts.ready.then(() => Math.max(document.documentElement?.scrollHeight ?? 0, document.scrollingElement?.scrollHeight ?? 0))';

/** A header and a footer template, ready for Chromium (defaults applied, images inlined). */
export interface TemplatePair {
  header: string;
  footer: string;
  /** Whether there is a template to print at all. */
  display: boolean;
}

/** Print the slot's document once its fonts are in, with the request's paper, margins and templates. */
export async function printPdf(
  slot: Slot,
  request: RenderRequest,
  templates: TemplatePair,
  maxPages: number,
): Promise<Uint8Array> {
  const height = await settleForPrint(slot);
  const parameters = printParameters(request, templates, maxPages);
  await refuseOverLimit(slot, request, parameters, maxPages, height);
  const print = () => slot.client.send('Page.printToPDF', parameters);
  // One page has no breaks (page-breaks.ts).
  const { stream } = await (
    request.singlePage ? withoutPageBreaks((expression) => inPrintWorld(slot, expression), print) : print()
  ).catch((error: unknown) => {
    // Chromium's word for a range that starts after the last page.
    if (request.pageRanges && /exceeds page count/i.test(String(error))) throw pastTheEnd(request.pageRanges, error);
    throw error;
  });
  if (!stream) throw new Error('Chromium returned no PDF stream');
  try {
    const chunks: Buffer[] = [];
    const read = () => slot.client.send('IO.read', { handle: stream, size: readChunkBytes });
    // Chromium says eof only on a read past the end, so reads go two at a time: a PDF that fits in
    // one chunk comes with its end in the same round trip.
    for (;;) {
      const pair = [read(), read()];
      // Awaited in turn below; the second must not go unhandled when the first fails.
      for (const next of pair) next.catch(() => undefined);
      for (const next of pair) {
        const { data, eof, base64Encoded } = await next;
        chunks.push(Buffer.from(data, base64Encoded ? 'base64' : 'utf8'));
        if (eof) {
          await Promise.allSettled(pair);
          return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        }
      }
    }
  } finally {
    void slot.client.send('IO.close', { handle: stream }).catch(() => undefined);
  }
}

/** Let the document settle as it is to be printed: its animation frames run, its fonts in; answers its height in CSS pixels. */
export async function settleForPrint(slot: Slot): Promise<number> {
  // The document's requestAnimationFrame callbacks and observers run only in a frame: frames are given
  // to a document that ran script, or that has frames (a cross-origin one runs script unseen).
  if (slot.state.scripted || slot.page.frames().length > 1) await animationFrame(slot);
  return Number(await inPrintWorld(slot, fontsReady)) || 0;
}

/** The error of a pageRanges that starts a range past the document's last page. */
export function pastTheEnd(pageRanges: string, cause?: unknown): PdfRenderError {
  return new PdfRenderError(
    'RENDER_PDF_FAILED',
    `pageRanges "${pageRanges}" asks for a page past the end of the document`,
    { cause, documentFault: true },
  );
}

// Bytes asked for per IO.read: a typical PDF in one, and each message bounded (about 11 MB as base64).
const readChunkBytes = 8 * 1024 * 1024;

/** Page.printToPDF's parameters for a validated request; lengths are already in inches. */
export function printParameters(
  request: RenderRequest,
  templates: TemplatePair,
  maxPages: number,
): Protocol.Page.PrintToPDFRequest {
  return {
    transferMode: 'ReturnAsStream',
    paperWidth: request.paperWidth,
    paperHeight: request.paperHeight,
    landscape: request.landscape,
    marginTop: request.marginTop,
    marginRight: request.marginRight,
    marginBottom: request.marginBottom,
    marginLeft: request.marginLeft,
    printBackground: request.printBackground,
    scale: request.scale,
    displayHeaderFooter: templates.display,
    headerTemplate: templates.header,
    footerTemplate: templates.footer,
    preferCSSPageSize: request.preferCssPageSize,
    // Chromium tags an outlined PDF anyway (as puppeteer says); asking for both keeps it explicit.
    generateTaggedPDF: request.tagged || request.outline,
    generateDocumentOutline: request.outline,
    pageRanges: chromiumPageRanges(pageRangesOf(request.pageRanges), maxPages),
  };
}

/**
 * Evaluate `expression` (awaiting its promise) in the slot's own isolated world and give its value;
 * the world is kept while the window lives (a document written into it keeps its worlds), and a new
 * window has none, so it is made again then.
 */
export async function inPrintWorld(slot: Slot, expression: string): Promise<unknown> {
  if (slot.printWorld !== undefined) {
    const reused = await slot.client
      .send('Runtime.evaluate', { expression, contextId: slot.printWorld, awaitPromise: true, returnByValue: true })
      .catch(() => undefined);
    if (reused) return reused.result.value;
  }
  const { executionContextId } = await slot.client.send('Page.createIsolatedWorld', {
    frameId: slot.state.frameId,
    worldName,
  });
  slot.printWorld = executionContextId;
  const { result } = await slot.client.send('Runtime.evaluate', {
    expression,
    contextId: executionContextId,
    awaitPromise: true,
    returnByValue: true,
  });
  return result.value;
}

/** Frames given at most to one document before it prints, waiting for its own callbacks to run. */
const maxFrames = 20;

// Runs animation frames until one has run a callback of ours, asked for after the document's: a
// frame runs callbacks in the order they were asked for, so by then the document's have run. A frame
// asked for before the page has told the compositor that it wants one passes the page by, which is
// why one is not always enough.
async function animationFrame(slot: Slot): Promise<void> {
  let ran = false;
  const ours = inPrintWorld(slot, 'new Promise((resolve) => requestAnimationFrame(() => resolve(true)))').then(() => {
    ran = true;
  });
  ours.catch(() => undefined);
  for (let frame = 0; frame < maxFrames && !ran; frame += 1) {
    await slot.frames.frame(slot.client);
    // Lets the answer to our callback, sent before the frame's own, be read.
    await new Promise(setImmediate);
  }
  if (ran) await ours;
}
