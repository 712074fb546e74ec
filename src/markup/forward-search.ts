/**
 * Searching caller-controlled text in one pass. A scanner that asks "where is the next X at or
 * after p?" for many p would rescan the same stretch each time when X is far away or absent (a
 * run of `url(` with no `)` makes that quadratic); a search remembers its last answer, so asked
 * with positions that only grow, it reads the text once.
 */

/** The first match of `pattern` at or after a position, or null; ask with positions that only grow to stay linear. */
export type ForwardSearch = (from: number) => RegExpExecArray | null;

/** A remembering search of `text` for `pattern` (a fresh global copy of it is used). */
export function forwardSearch(text: string, pattern: RegExp): ForwardSearch {
  const regex = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
  let askedFrom = Number.POSITIVE_INFINITY;
  let answer: RegExpExecArray | null = null;
  return (from) => {
    // The last answer holds for any position between where it was asked and where it was found:
    // nothing matched in between.
    if (from >= askedFrom && (answer === null || from <= answer.index)) return answer;
    regex.lastIndex = from;
    askedFrom = from;
    answer = regex.exec(text);
    return answer;
  };
}

/** Index of the first `needle` at or after a position (text length when none), remembering as forwardSearch does. */
export function forwardIndex(text: string, needle: RegExp): (from: number) => number {
  const search = forwardSearch(text, needle);
  return (from) => search(from)?.index ?? text.length;
}

/** What a sticky pattern (flag y) that can match empty matches exactly at `at`: reads only what it matches. */
export function stickyAt(pattern: RegExp, text: string, at: number): string {
  pattern.lastIndex = at;
  return pattern.exec(text)![0];
}
