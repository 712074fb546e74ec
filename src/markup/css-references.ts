/**
 * The URLs a piece of CSS refers to, read as a CSS tokenizer reads it: comments and the text of
 * strings hold no references, and what a URL does depends on where it is (an image in a
 * declaration, a font in `@font-face`, a style sheet after `@import`). Linear in the CSS's length
 * whatever it holds: the scan only moves forward, past each token it reads, so each position is
 * read a bounded number of times.
 */
import { stickyAt } from './forward-search.js';

/** One URL of a piece of CSS. */
export interface CssReference {
  /** 'image': url() or an image-set() string in a declaration; 'font': url() in @font-face; 'import': the URL after @import. */
  kind: 'image' | 'font' | 'import';
  /** The URL as written (quotes and escapes are not undone). */
  url: string;
  /** 'url': the span is a whole `url(...)`; 'string': a quoted string, its quotes included. */
  syntax: 'url' | 'string';
  start: number;
  end: number;
}

// What starts a token the scan cares about; `(` and `)` are counted for image-set()'s arguments.
const tokens =
  /\/\*|["']|(?<![\w-])url\(|(?<![\w-])(?:-webkit-)?image-set\(|@import(?![\w-])|@font-face(?![\w-])|[{}();]/gi;
// A string runs to its closing quote, a newline (a bad string) or the end; a backslash escapes the next character.
const strings = {
  '"': /"(?:[^"\\\n\r\f]|\\[\s\S]|\\$)*(?:"|[\n\r\f]|$)/y,
  "'": /'(?:[^'\\\n\r\f]|\\[\s\S]|\\$)*(?:'|[\n\r\f]|$)/y,
};
const blank = /\s*/y;
const bareUrl = /(?:[^\s"'()\\]|\\[\s\S])*/y;

/**
 * The URLs of `css`: a style sheet when `sheet` (rules, `@import`, `@font-face`), else the
 * declarations of a `style` attribute.
 */
export function cssReferences(css: string, sheet: boolean): CssReference[] {
  const next = (from: number) => {
    tokens.lastIndex = from;
    return tokens.exec(css);
  };
  const references: CssReference[] = [];
  let depth = 0; // braces
  let parens = 0;
  let fontFace: number | null = null; // the brace depth inside the @font-face being read
  let fontFacePending = false;
  let imageSet: number | null = null; // the paren depth of the image-set() being read
  let importPending = false;
  let position = 0;
  for (let token = next(position); token; token = next(position)) {
    const at = token.index;
    const text = token[0].toLowerCase();
    position = at + text.length;
    if (text === '/*') {
      const end = css.indexOf('*/', position);
      position = end === -1 ? css.length : end + 2;
      continue;
    }
    if (text === '"' || text === "'") {
      const string = stickyAt(strings[text], css, at);
      position = at + string.length;
      const closed = string.length > 1 && string.endsWith(text);
      const url = closed ? string.slice(1, -1) : '';
      if (closed && importPending) references.push({ kind: 'import', url, syntax: 'string', start: at, end: position });
      else if (closed && imageSet !== null && parens === imageSet)
        references.push({ kind: 'image', url, syntax: 'string', start: at, end: position });
      importPending = false;
      continue;
    }
    if (text === 'url(') {
      const value = urlToken(css, position);
      if (value) {
        const kind = importPending ? 'import' : fontFace !== null ? 'font' : 'image';
        references.push({ kind, url: value.url, syntax: 'url', start: at, end: value.end });
        position = value.end;
      }
      importPending = false;
      continue;
    }
    importPending = false;
    if (text.endsWith('image-set(')) {
      parens += 1;
      imageSet ??= parens;
    } else if (text === '(') parens += 1;
    else if (text === ')') {
      if (imageSet === parens) imageSet = null;
      parens = Math.max(0, parens - 1);
    } else if (text === ';') fontFacePending = false;
    else if (text === '@import') importPending = sheet && depth === 0;
    else if (text === '@font-face') fontFacePending = sheet;
    else if (text === '{') {
      depth += 1;
      if (fontFacePending) fontFace = depth;
      fontFacePending = false;
    } else if (text === '}') {
      if (fontFace === depth) fontFace = null;
      depth = Math.max(0, depth - 1);
    }
  }
  return references;
}

// The URL of a `url(` whose parenthesis ends at `start`, and where its `)` ends; null for a bad URL.
function urlToken(css: string, start: number): { url: string; end: number } | null {
  let i = start + stickyAt(blank, css, start).length;
  let url: string;
  const quote = css[i];
  if (quote === '"' || quote === "'") {
    const string = stickyAt(strings[quote], css, i);
    if (string.length < 2 || !string.endsWith(quote)) return null;
    url = string.slice(1, -1);
    i += string.length;
  } else {
    url = stickyAt(bareUrl, css, i);
    i += url.length;
  }
  i += stickyAt(blank, css, i).length;
  return css[i] === ')' ? { url, end: i + 1 } : null;
}
