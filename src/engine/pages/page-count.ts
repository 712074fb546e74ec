/**
 * Page count of a PDF that Chromium wrote, read from its page tree without parsing the whole file.
 * Chromium (Skia) writes the page tree as plain dictionaries; the root /Pages node holds the total.
 * The PDF holds caller text (Chromium copies the document's title into it), so the scan is one
 * pass: each search below only moves forward (see forward-search.ts).
 */
import { forwardIndex, forwardSearch } from '../../markup/forward-search.js';

/** The number of pages in `pdf`: the largest /Count of its /Pages nodes (the root's). */
export function countPdfPages(pdf: Uint8Array): number {
  const text = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength).toString('latin1');
  const opens = forwardIndex(text, /<</);
  const pagesTypes = forwardIndex(text, /\/Type\s*\/Pages\b/);
  const counts = forwardSearch(text, /\/Count\s+(\d+)/);
  let pages = 0;
  // One dictionary at a time: from the first `<<` after the last `>>` to the next `>>`, holding
  // `/Type /Pages` and a `/Count N`, the keys in any order.
  for (let from = 0; from < text.length;) {
    const close = text.indexOf('>>', from);
    if (close < 0) break;
    const open = opens(from);
    if (open < close && pagesTypes(open) < close) {
      const count = counts(open);
      if (count && count.index < close) pages = Math.max(pages, Number(count[1]));
    }
    from = close + 2;
  }
  return pages;
}
