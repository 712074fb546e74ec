/**
 * Page ranges as callers write them ("1-3,5", "2-", "-4"), checked once at the edge and turned into
 * what Chromium's printToPDF takes. Parsed by splitting, never by one pattern over the whole
 * string, so a long list costs linear time.
 */

/** One range of pages, 1-based and inclusive; `last` null means to the end of the document. */
export interface PageRange {
  first: number;
  last: number | null;
}

/** The most ranges one request may list. */
export const maxPageRanges = 100;

/** Parse "1-3,5"; returns the ranges, or a problem naming the part that is wrong. */
export function parsePageRanges(text: string): PageRange[] | { problem: string } {
  const parts = text.split(',');
  if (parts.length > maxPageRanges) return { problem: `must list at most ${maxPageRanges} ranges (got ${parts.length})` };
  const ranges: PageRange[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const match = /^(\d{1,6})?\s*(-)?\s*(\d{1,6})?$/.exec(part);
    const [, first, dash, last] = match ?? [];
    if (!match || (first === undefined && last === undefined) || (!dash && last !== undefined)) {
      return { problem: `must be page numbers and ranges such as "1-3,5", "2-" or "-4" (got "${part}" in "${text}")` };
    }
    const range = { first: first === undefined ? 1 : Number(first), last: dash ? (last === undefined ? null : Number(last)) : Number(first) };
    if (range.first < 1) return { problem: `pages are numbered from 1 (got "${part}")` };
    if (range.last !== null && range.last < range.first) return { problem: `"${part}" ends before it starts` };
    ranges.push(range);
  }
  return ranges;
}

/**
 * Chromium's pageRanges for `ranges` (every page when none), with open and long ranges cut one page
 * past `maxPages`: enough to know the limit was passed without printing a runaway document whole.
 */
export function chromiumPageRanges(ranges: readonly PageRange[] | null, maxPages: number): string {
  const end = maxPages + 1;
  if (!ranges) return `1-${end}`;
  return ranges.map(({ first, last }) => `${first}-${Math.min(last ?? end, Math.max(first, end))}`).join(',');
}
