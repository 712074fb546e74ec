/**
 * A document sent as htmlContent has no base URL (it is written at about:blank), so the relative
 * URLs in it (an upload's `invoice.css`, `logo.svg`) lead nowhere: Chromium does not even ask for
 * them, and nothing would say they were missing. They are read from the page (pdfrender's own
 * world) and reported as failed, a `RELATIVE_URL` each.
 */
import type { ResourceIssue } from '../network-report.js';
import type { Slot } from './page-pool.js';
import { inPrintWorld } from './print-pdf.js';

/** At most this many are reported for one document. */
const maxReported = 20;

// Resources a document loads by an attribute, as Chromium would fetch them; links and anchors are not loads.
const unresolved = `(() => {
  if (document.baseURI !== 'about:blank') return [];
  const found = new Set();
  for (const [selector, attribute] of [['img[src], script[src], iframe[src], embed[src], source[src], video[src], audio[src], input[src]', 'src'], ['link[href]', 'href'], ['video[poster]', 'poster'], ['object[data]', 'data']]) {
    for (const element of document.querySelectorAll(selector)) {
      if (element.localName === 'link' && !/(^|\\s)stylesheet(\\s|$)/i.test(element.rel)) continue;
      const value = (element.getAttribute(attribute) || '').trim();
      if (value && !/^([a-z][a-z0-9+.-]*:|\\/\\/|#)/i.test(value)) found.add(value);
      if (found.size >= ${maxReported}) return [...found];
    }
  }
  return [...found];
})()`;

export const relativeUrlReason =
  'a relative URL in a document with no base URL (send absolute URLs, a <base href>, or url)';

/** The relative URLs the slot's document could not load for want of a base URL. */
export async function unresolvedRelativeUrls(slot: Slot): Promise<ResourceIssue[]> {
  const urls = (await inPrintWorld(slot, unresolved)) as string[] | undefined;
  return (urls ?? []).map((url) => ({ url, code: 'RELATIVE_URL', reason: relativeUrlReason }));
}
