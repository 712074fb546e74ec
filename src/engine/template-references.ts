/**
 * What a header or footer template refers to, found in one pass over its markup: image URLs
 * (`<img src>` and CSS `url()`, which pdfrender inlines) and whether an element has the class
 * `url` (which needs the page at the document's own URL). Templates are caller text, so every
 * scan here is linear in their length, whatever they hold (see forward-search.ts).
 */
import { forwardIndex, forwardSearch } from './forward-search.js';

/** One image reference: `url` as written, and the span of the template that refers to it. */
export interface TemplateReference {
  kind: 'img' | 'css';
  url: string;
  /** For 'img' the attribute value with its quotes; for 'css' the whole `url(...)`. */
  start: number;
  end: number;
}

/** Every `<img src>` and CSS `url()` of `html`, in order, none overlapping. */
export function templateReferences(html: string): TemplateReference[] {
  const images: TemplateReference[] = attributeValues(html, /<img\b/i, /\bsrc\s*=\s*/i).map((value) => ({ kind: 'img', ...value }));
  const css: TemplateReference[] = cssUrls(html).map((value) => ({ kind: 'css', ...value }));
  // A url() inside an img's src belongs to the img.
  const all: TemplateReference[] = [];
  let i = 0;
  for (const reference of css) {
    while (i < images.length && images[i]!.end <= reference.start) all.push(images[i++]!);
    const inside = i < images.length && images[i]!.start < reference.end;
    if (!inside) all.push(reference);
  }
  return [...all, ...images.slice(i)];
}

/** The distinct URLs `html` would have inlined (data: URIs are already inline). */
export function distinctImageUrls(html: string): Set<string> {
  return new Set(templateReferences(html).map((reference) => reference.url.trim()).filter((url) => url !== '' && !/^data:/i.test(url)));
}

/** Whether an element of `html` has the class `url`, which Chromium fills with the document's URL. */
export function usesUrlClass(html: string): boolean {
  // In any case: the template is a quirks-mode document, where class names match regardless of case.
  return attributeValues(html, /<[a-z][^\s/>]*/i, /\bclass\s*=\s*/i).some(({ url }) => url.toLowerCase().split(/[\t\n\f\r ]+/).includes('url'));
}

interface Value {
  url: string;
  start: number;
  end: number;
}

// The value of the first `attribute` (double-, single- or un-quoted) in each tag matching `tag`.
function attributeValues(html: string, tag: RegExp, attribute: RegExp): Value[] {
  const tags = forwardSearch(html, tag);
  const attributes = forwardSearch(html, attribute);
  const tagEnd = forwardIndex(html, />/);
  const quoted = quotedEnds(html);
  const bareEnd = forwardIndex(html, /[\s"'>]/);
  const values: Value[] = [];
  let position = 0;
  for (let found = tags(position); found; found = tags(position)) {
    const end = tagEnd(found.index);
    position = end; // a tag without a usable attribute: every tag that starts inside it ends at the same '>'
    for (let name = attributes(found.index + 1); name && name.index < end; name = attributes(name.index + 1)) {
      const value = valueAt(html, name.index + name[0].length, quoted, bareEnd);
      if (value) {
        values.push(value);
        position = value.end;
        break;
      }
    }
  }
  return values;
}

// `url(x)`, `url("x")`, `url('x')`, with spaces inside the parentheses.
function cssUrls(html: string): Value[] {
  const opens = forwardSearch(html, /url\(\s*/i);
  const quoted = quotedEnds(html);
  const bareEnd = forwardIndex(html, /[)"'\s]/);
  // Separate searches for what follows a quoted and a bare value, so each is asked in growing order.
  const afterQuoted = forwardIndex(html, /\S/);
  const afterBare = forwardIndex(html, /\S/);
  const values: Value[] = [];
  let position = 0;
  for (let open = opens(position); open; open = opens(position)) {
    position = open.index + 1;
    const start = open.index + open[0].length;
    const quote = html[start];
    const bare = quote !== '"' && quote !== "'";
    const end = bare ? bareEnd(start) : quoted[quote](start + 1);
    if (bare ? end === start : end >= html.length) continue;
    const close = bare ? afterBare(end) : afterQuoted(end + 1);
    if (html[close] !== ')') continue;
    const url = bare ? html.slice(start, end) : html.slice(start + 1, end);
    values.push({ url, start: open.index, end: close + 1 });
    position = close + 1;
  }
  return values;
}

// The closing quote of each kind at or after a position.
function quotedEnds(html: string): Record<'"' | "'", (from: number) => number> {
  return { '"': forwardIndex(html, /"/), "'": forwardIndex(html, /'/) };
}

// An attribute value starting at `start`: quoted up to its closing quote, or bare up to a space, quote or '>'.
function valueAt(html: string, start: number, quoted: ReturnType<typeof quotedEnds>, bareEnd: (from: number) => number): Value | null {
  const quote = html[start];
  if (quote === '"' || quote === "'") {
    const end = quoted[quote](start + 1);
    return end < html.length ? { url: html.slice(start + 1, end), start, end: end + 1 } : null;
  }
  const end = bareEnd(start);
  return end > start ? { url: html.slice(start, end), start, end } : null;
}
