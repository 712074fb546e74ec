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
}

/** Load `request.htmlContent` into the slot's page as a document at `baseUrl`, and print it. */
export async function printDocument(slot: Slot, request: RenderRequest, templates: Templates, baseUrl: string): Promise<Uint8Array> {
  const { page } = slot;
  // Navigating gives the document a new window at the base URL its relative links resolve against
  // (the input file's folder for the CLI). setContent alone (document.open) keeps the last
  // document's window: its globals, top-level consts and timers would run on into this document.
  if (slot.dirty || slot.windowUrl !== baseUrl) {
    await page.goto(baseUrl, { waitUntil: 'load', timeout: 0 });
    slot.windowUrl = baseUrl;
  }
  slot.dirty = mayRunScript(request.htmlContent);
  await page.setContent(request.htmlContent, { waitUntil: 'load', timeout: 0 });
  return page.pdf(pdfOptions(request, templates));
}

/** Remove everything the document may have stored, so the next document on this page sees none of it. */
export async function wipeDocumentState(slot: Slot): Promise<void> {
  // Cookies can come from any subresource's Set-Cookie; storage only from script.
  await slot.client.send('Network.clearBrowserCookies');
  if (!slot.dirty) return;
  const origins = new Set<string>();
  for (const frame of slot.page.frames()) {
    const origin = storageOrigin(frame.url());
    if (origin) origins.add(origin);
  }
  await slot.page.evaluate(() => {
    try {
      sessionStorage.clear();
    } catch {
      // opaque origins (about:blank) have no storage
    }
  });
  await Promise.all([...origins].map((origin) => slot.client.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })));
}

/** Puppeteer's PDF options for a validated request; lengths are already in inches. */
export function pdfOptions(request: RenderRequest, templates: Templates): PDFOptions {
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
    timeout: 0,
  };
}

// The origin under which a frame's storage is kept; file: documents share one, about: has none.
function storageOrigin(url: string): string | null {
  if (url.startsWith('file:')) return 'file://';
  if (!/^https?:/i.test(url)) return null;
  return new URL(url).origin;
}
