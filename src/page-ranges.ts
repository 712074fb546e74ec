/**
 * Page ranges as callers write them ("1-3,5", "2-", "-4"), checked once at the edge and turned into
 * what Chromium's printToPDF takes. Parsed by splitting, and each part by a pattern with nothing to
 * backtrack over, so a long list costs linear time.
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
  if (parts.length > maxPageRanges)
    return { problem: `must list at most ${maxPageRanges} ranges (got ${parts.length})` };
  const ranges: PageRange[] = [];
  for (const raw of parts) {
    const part = raw.trim();
    const match = /^(\d{1,6})?\s*(?:(-)\s*(\d{1,6})?)?$/.exec(part);
    const [, first, dash, last] = match ?? [];
    if (!match || (first === undefined && last === undefined)) {
      return { problem: `must be page numbers and ranges such as "1-3,5", "2-" or "-4" (got "${part}" in "${text}")` };
    }
    const range = {
      first: first === undefined ? 1 : Number(first),
      last: dash ? (last === undefined ? null : Number(last)) : Number(first),
    };
    if (range.first < 1) return { problem: `pages are numbered from 1 (got "${part}")` };
    if (range.last !== null && range.last < range.first) return { problem: `"${part}" ends before it starts` };
    ranges.push(range);
  }
  return ranges;
}

/** The ranges of a request's pageRanges, which validation has already accepted; null for every page. */
export function pageRangesOf(text: string | null): PageRange[] | null {
  if (!text) return null;
  const parsed = parsePageRanges(text);
  if ('problem' in parsed) throw new Error(`pageRanges was not validated: ${parsed.problem}`);
  return parsed;
}

/**
 * Chromium's pageRanges for `ranges` (every page when null). A range is cut `maxPages` pages after
 * its start, so a runaway document is never printed whole, yet a document longer than the limit
 * still prints more than `maxPages` pages, and fails the limit rather than coming out cut short.
 */
export function chromiumPageRanges(ranges: readonly PageRange[] | null, maxPages: number): string {
  if (!ranges) return `1-${maxPages + 1}`;
  return ranges.map(({ first, last }) => `${first}-${Math.min(last ?? Infinity, first + maxPages)}`).join(',');
}

/**
 * How many pages a document must print for every range to start within it: the distinct pages the
 * ranges ask for, up to the last range's first page. Chromium leaves out a range that starts past
 * the end without a word when another range prints something; a count below this says one did.
 */
export function pagesAskedUpTo(ranges: readonly PageRange[]): number {
  const end = Math.max(...ranges.map((range) => range.first));
  const spans = ranges
    .map(({ first, last }) => [first, Math.min(last ?? end, end)] as const)
    .sort((a, b) => a[0] - b[0]);
  let count = 0;
  let covered = 0;
  for (const [first, last] of spans) {
    const from = Math.max(first, covered + 1);
    if (last >= from) count += last - from + 1;
    covered = Math.max(covered, last);
  }
  return count;
}
