/**
 * Chromium's printToPDF in as few DevTools round trips as it takes. Puppeteer's page.pdf() waits
 * for fonts, then has the PDF streamed (printToPDF, two IO.read and an IO.close: four round trips
 * after the fonts); a document's PDF is small enough to come back whole in printToPDF's answer.
 */
import type { Protocol } from 'puppeteer-core';
import type { RenderRequest } from '../request.js';
import type { Slot } from './page-pool.js';
import type { Templates } from './print-document.js';

// The world fonts are awaited in: the document's own script cannot reach it, and what runs there is
// never the document's (page-state.ts counts only the main world's scripts).
const worldName = 'pdfrender-print';
const fontsReady = 'document.fonts.ready.then(() => true)';

/** Print the slot's document once its fonts are in, with the request's paper, margins and templates. */
export async function printPdf(slot: Slot, request: RenderRequest, templates: Templates, maxPages: number): Promise<Uint8Array> {
  await fontsLoaded(slot);
  const { data } = await slot.client.send('Page.printToPDF', printParameters(request, templates, maxPages));
  return Buffer.from(data, 'base64');
}

/** Page.printToPDF's parameters for a validated request; lengths are already in inches. */
export function printParameters(request: RenderRequest, templates: Templates, maxPages: number): Protocol.Page.PrintToPDFRequest {
  return {
    transferMode: 'ReturnAsBase64',
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
    preferCSSPageSize: false,
    // Chromium tags an outlined PDF anyway (as puppeteer says); asking for both keeps it explicit.
    generateTaggedPDF: request.tagged || request.outline,
    generateDocumentOutline: request.outline,
    // One page past the limit is enough to know it was passed, without printing a runaway document whole.
    pageRanges: `1-${maxPages + 1}`,
  };
}

// Waits for document.fonts.ready in the slot's own isolated world, kept while the window lives (a
// document written into it keeps its worlds); a new window has none, so it is made again then.
async function fontsLoaded(slot: Slot): Promise<void> {
  if (slot.printWorld !== undefined) {
    const reused = await slot.client.send('Runtime.evaluate', { expression: fontsReady, contextId: slot.printWorld, awaitPromise: true }).then(
      () => true,
      () => false,
    );
    if (reused) return;
  }
  const { executionContextId } = await slot.client.send('Page.createIsolatedWorld', { frameId: slot.state.frameId, worldName });
  slot.printWorld = executionContextId;
  await slot.client.send('Runtime.evaluate', { expression: fontsReady, contextId: executionContextId, awaitPromise: true });
}
