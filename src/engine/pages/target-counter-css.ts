/**
 * The style rules that give a pseudo-element `content: target-counter(<target>, page)`, read from
 * a document's CSS text. Chromium drops such a declaration as invalid, so its style sheets no longer
 * hold it: pdfrender reads the text and keeps, for each rule, its selectors and its content value in
 * parts (CSS kept as written, and the calls whose numbers it writes in). Caller text: one pass over
 * it, every loop moving forward, so a hostile sheet costs time in proportion to its length.
 */

/** A `target-counter(..., page)` call: its target is an attribute of the element, or a literal URL. */
export type Target = { attr: string } | { url: string };

/** One part of a content value: CSS as written, or a page reference to replace with a number. */
export type ContentPart = { css: string } | { target: Target; style: string };

/** A rule whose pseudo-element content holds page references. */
export interface ReferenceRule {
  /** Each selector's element part (`nav a`) and its pseudo-element (`after`). */
  selectors: Array<{ base: string; pseudo: string }>;
  parts: ContentPart[];
}

/** Whether CSS text may hold a page reference (the cheap test before any parse). */
export const mentionsTargetCounter = (css: string): boolean => /target-counter\s*\(/i.test(css);

/** The rules with page references in `sheets` (CSS texts), at most `max` of them. */
export function referenceRules(sheets: string[], max: number): ReferenceRule[] {
  const rules: ReferenceRule[] = [];
  for (const sheet of sheets) {
    for (const { prelude, body } of styleRules(sheet)) {
      if (rules.length >= max) return rules;
      if (!mentionsTargetCounter(body)) continue;
      const content = lastContent(body);
      const parts = content === undefined ? undefined : contentParts(content);
      const selectors = splitTop(prelude, ',').flatMap((selector) => {
        const match = /^(.*?)::?(before|after|marker)\s*$/is.exec(selector.trim());
        return match ? [{ base: match[1]!.trim() || '*', pseudo: match[2]!.toLowerCase() }] : [];
      });
      if (parts && selectors.length > 0) rules.push({ selectors, parts });
    }
  }
  return rules;
}

/** `n` in a counter style: decimal, or the roman and alphabetic ones; any other style is written as decimal. */
export function formatCounter(n: number, style: string): string {
  const lower = style.trim().toLowerCase();
  if (/^(lower|upper)-roman$/.test(lower) && n > 0 && n < 4000) {
    const numerals: Array<[number, string]> = [
      [1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'],
      [50, 'l'], [40, 'xl'], [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i'],
    ]; // prettier-ignore
    let rest = n;
    let text = '';
    for (const [value, numeral] of numerals) for (; rest >= value; rest -= value) text += numeral;
    return lower.startsWith('upper') ? text.toUpperCase() : text;
  }
  if (/^(lower|upper)-(alpha|latin)$/.test(lower) && n > 0) {
    let text = '';
    for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26))
      text = String.fromCharCode(97 + ((rest - 1) % 26)) + text;
    return lower.startsWith('upper') ? text.toUpperCase() : text;
  }
  return String(n);
}

// The indices of `text` from `from` on that are CSS itself: strings, comments and escapes passed over.
function* plainChars(text: string, from = 0): Generator<number> {
  for (let i = from; i < text.length;) {
    const ch = text[i];
    if (ch === '\\') i += 2;
    else if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
    } else if (ch === '"' || ch === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== ch && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1;
      i = end + 1;
    } else {
      yield i;
      i += 1;
    }
  }
}

// Every style rule (not an at-rule) with its prelude and declarations, inside groups (@media,
// @supports, @layer) too. A nested rule's text stays in its parent's body, where lastContent skips it.
function* styleRules(text: string): Generator<{ prelude: string; body: string }> {
  const open: Array<{ prelude: string; start: number }> = [];
  let preludeStart = 0;
  for (const i of plainChars(text)) {
    const ch = text[i];
    if (ch === '{') {
      open.push({
        prelude: text
          .slice(preludeStart, i)
          .replace(/\/\*[\s\S]*?\*\//g, '')
          .trim(),
        start: i + 1,
      });
      preludeStart = i + 1;
    } else if (ch === '}') {
      const rule = open.pop();
      if (rule && !rule.prelude.startsWith('@')) yield { prelude: rule.prelude, body: text.slice(rule.start, i) };
      preludeStart = i + 1;
    } else if (ch === ';') preludeStart = i + 1;
  }
}

// `text` split at each top-level `separator` (outside strings, comments, brackets and parentheses).
function splitTop(text: string, separator: string): string[] {
  const pieces: string[] = [];
  let depth = 0;
  let from = 0;
  for (const i of plainChars(text)) {
    const ch = text[i]!;
    if ('([{'.includes(ch)) depth += 1;
    else if (')]}'.includes(ch)) depth = Math.max(0, depth - 1);
    else if (ch === separator && depth === 0) {
      pieces.push(text.slice(from, i));
      from = i + 1;
    }
  }
  pieces.push(text.slice(from));
  return pieces;
}

// The value of the block's last `content` declaration (the one the cascade keeps), without !important.
function lastContent(body: string): string | undefined {
  let value: string | undefined;
  for (const declaration of splitTop(body, ';')) {
    const match = /^\s*content\s*:([\s\S]*)$/i.exec(declaration.replace(/\/\*[\s\S]*?\*\//g, ''));
    if (match && !match[1]!.includes('{')) value = match[1]!.replace(/!\s*important\s*$/i, '').trim();
  }
  return value;
}

// A content value in parts; undefined when a target-counter in it is not one pdfrender can write.
function contentParts(value: string): ContentPart[] | undefined {
  const parts: ContentPart[] = [];
  const call = /(target-counter|leader)\s*\(/gi;
  let from = 0;
  for (let match = call.exec(value); match; match = call.exec(value)) {
    const end = closingParen(value, call.lastIndex);
    const args = splitTop(value.slice(call.lastIndex, end), ',').map((arg) => arg.trim());
    if (match.index > from) parts.push({ css: value.slice(from, match.index) });
    // Chromium has no leader() either: a space keeps the rest of the value.
    if (match[1]!.toLowerCase() === 'leader') parts.push({ css: '" "' });
    else {
      const target = targetOf(args[0] ?? '');
      if (!target || args[1]?.toLowerCase() !== 'page') return undefined;
      parts.push({ target, style: args[2] ?? 'decimal' });
    }
    from = end + 1;
    call.lastIndex = from;
  }
  if (from < value.length) parts.push({ css: value.slice(from) });
  return parts;
}

// Index of the `)` that closes a call whose arguments start at `from` (the text's end when none does).
function closingParen(text: string, from: number): number {
  let depth = 0;
  for (const i of plainChars(text, from)) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')' && depth-- === 0) return i;
  }
  return text.length;
}

// attr(href), attr(href url), attr(href type(<url>)), url(#x), url("#x") or "#x".
function targetOf(arg: string): Target | undefined {
  const attr = /^attr\(\s*([-\w]+)[^)]*\)?\)$/i.exec(arg);
  if (attr) return { attr: attr[1]! };
  const url = /^url\(\s*(?:"([^"]*)"|'([^']*)'|([^)'"\s]*))\s*\)$/i.exec(arg) ?? /^(?:"([^"]*)"|'([^']*)')$/.exec(arg);
  return url ? { url: url[1] ?? url[2] ?? url[3] ?? '' } : undefined;
}
