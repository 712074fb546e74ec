/**
 * The steps of one render on a warm page: a fresh document at the base URL, the content, its
 * resources and fonts, then Chromium's printToPDF; afterwards the page is wiped for the next one.
 */
import type { PDFOptions } from 'puppeteer-core';
import type { RenderRequest } from '../request.js';
import { mayRunScript } from './may-run-script.js';
import type { Slot } from './page-pool.js';

/** Header and footer templates, ready for Chromium (defaults applied, images inlined). */
export interface Templates {
  header: string;
  footer: string;
  display: boolean;
  /** A template prints the document's URL (class "url"). */
  usesUrl: boolean;
}

/**
 * Load `request.htmlContent` into the slot's page as a document at `baseUrl`, and print it. With
 * a `documentUrl` (given only when a template prints the URL), the page navigates to that URL
 * instead, which the page's guard answers with the same HTML, so `url` prints the file rather
 * than its folder; that costs a navigation, so it is done only then.
 */
export async function printDocument(slot: Slot, request: RenderRequest, templates: Templates, baseUrl: string, maxPages: number, documentUrl?: string): Promise<Uint8Array> {
  const { page } = slot;
  if (documentUrl) {
    await page.goto(documentUrl, { waitUntil: 'load', timeout: 0 });
    slot.windowUrl = documentUrl;
    slot.dirty = true; // its window is not the folder's, so the next document gets a fresh one
    return page.pdf(pdfOptions(request, templates, maxPages));
  }
  // The page keeps its window while the base URL stays the same: the last document ran no script
  // (resetPage navigated away from any that might have), so its window holds nothing of it.
  if (slot.windowUrl !== baseUrl) {
    await page.goto(baseUrl, { waitUntil: 'load', timeout: 0 });
    slot.windowUrl = baseUrl;
  }
  slot.dirty = mayRunScript(request.htmlContent);
  await page.setContent(request.htmlContent, { waitUntil: 'load', timeout: 0 });
  return page.pdf(pdfOptions(request, templates, maxPages));
}

/**
 * Leave the page as a fresh window at `baseUrl` with nothing stored. setContent alone
 * (document.open) keeps a window's globals, top-level consts and timers, so after a document
 * that may have run script the page navigates first: that stops the script, and only then is
 * what it stored wiped, so nothing can write after the wipe.
 */
export async function resetPage(slot: Slot, baseUrl: string): Promise<void> {
  if (slot.dirty) {
    const origins = new Set([baseUrl, ...slot.page.frames().map((frame) => frame.url())].map(storageOrigin).filter((o) => o !== null));
    await slot.page.goto(baseUrl, { waitUntil: 'load', timeout: 0 });
    slot.windowUrl = baseUrl;
    await slot.page.evaluate(() => {
      try {
        sessionStorage.clear(); // kept per tab, so clearing data for an origin does not reach it
      } catch {
        // opaque origins (about:blank) have no storage
      }
    });
    await Promise.all([...origins].map((origin) => slot.client.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })));
    slot.dirty = false;
  }
  // Cookies can come from any subresource's Set-Cookie, script or not.
  await slot.client.send('Network.clearBrowserCookies');
}

/** Puppeteer's PDF options for a validated request; lengths are already in inches. */
export function pdfOptions(request: RenderRequest, templates: Templates, maxPages: number): PDFOptions {
  const inches = (value: number) => `${value}in`;
  return {
    width: inches(request.paperWidth),
    height: inches(request.paperHeight),
    landscape: request.landscape,
    margin: {
      top: inches(request.marginTop),
      right: inches(request.marginRight),
      bottom: inches(request.marginBottom),
      left: inches(request.marginLeft),
    },
    printBackground: request.printBackground,
    scale: request.scale,
    displayHeaderFooter: templates.display,
    headerTemplate: templates.header,
    footerTemplate: templates.footer,
    preferCSSPageSize: false,
    tagged: request.tagged,
    outline: request.outline,
    waitForFonts: true,
    // One page past the limit is enough to know it was passed, without printing a runaway document whole.
    pageRanges: `1-${maxPages + 1}`,
    timeout: 0,
  };
}

// The origin under which a frame's storage is kept; file: documents share one, about: has none.
function storageOrigin(url: string): string | null {
  if (url.startsWith('file:')) return 'file://';
  if (!/^https?:/i.test(url)) return null;
  return new URL(url).origin;
}
