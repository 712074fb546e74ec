/**
 * What a header or footer template refers to, found in one pass over its markup and its CSS:
 * images (`<img src>`, CSS `url()` and image-set(), which pdfrender inlines), style sheets
 * (`<link rel=stylesheet>`, `@import`, inlined too), web fonts and everything else that would load
 * (`<script src>`, frames, media, `srcset`, SVG references to other files: left out), and whether an
 * element has the class `url` (which needs the page at the document's own URL). Chromium prints a
 * template without loading anything, and a style sheet or font it would wait for fails the whole
 * print, so every reference found here is either inlined or removed. Templates are caller text, so
 * every scan here is linear in their length, whatever they hold.
 */
import { cssReferences, type CssReference } from './css-references.js';
import { scanHtml, type HtmlAttribute, type HtmlScan, type HtmlTag } from './html-tags.js';

/** One reference of a template to something outside it. */
export interface TemplateReference {
  /** 'img': an `<img src>`; 'css': an image from CSS; 'stylesheet', 'font'; 'other': anything else that would load. */
  kind: 'img' | 'css' | 'stylesheet' | 'font' | 'other';
  /** The URL as written. */
  url: string;
  /** What refers to it, for reports: 'image', 'stylesheet', 'font', or the element and attribute (`<script src>`). */
  what: string;
  /** How the span is written: an attribute value (its quotes included), a CSS `url(...)` or a CSS string. */
  syntax: 'attribute' | 'url' | 'string';
  /** The URLs of a `srcset` (a list of candidates), each reported; the attribute is emptied as a whole. */
  candidates?: string[];
  start: number;
  end: number;
}

// Attributes that load what they name, on any element (href only where it is not a link: see below).
const loadingAttributes = new Set([
  'src',
  'srcset',
  'imagesrcset',
  'href',
  'xlink:href',
  'poster',
  'background',
  'data',
  'lowsrc',
  'dynsrc',
]);
// Elements whose href is a link or a base URL, not something to load.
const linkElements = new Set(['a', 'area', 'base']);
// SVG presentation attributes that take a url() (a fragment in the same document is no load).
const urlAttributes = new Set([
  'fill',
  'stroke',
  'filter',
  'mask',
  'clip-path',
  'marker-start',
  'marker-mid',
  'marker-end',
  'cursor',
]);

/** Every reference of `html` to something outside it, in order, none overlapping; `scan` is html's own, when already made. */
export function templateReferences(html: string, scan: HtmlScan = scanHtml(html)): TemplateReference[] {
  const { tags, styleSheets } = scan;
  const references: TemplateReference[] = [];
  const fromCss = (css: CssReference[], offset: number, inAttribute?: string) =>
    css
      .filter((reference) => loads(reference.url))
      .map((reference) => ({
        ...cssReference(reference, inAttribute),
        start: reference.start + offset,
        end: reference.end + offset,
      }));
  // Tags and style sheets do not overlap, and each list is in order: merge them by position.
  let sheet = 0;
  for (const tag of tags) {
    for (; sheet < styleSheets.length && styleSheets[sheet]!.start < tag.start; sheet += 1)
      references.push(...sheetReferences(html, styleSheets[sheet]!, fromCss));
    for (const attribute of tag.attributes) {
      const valueStart =
        attribute.start + (attribute.end > attribute.start && /["']/.test(html[attribute.start]!) ? 1 : 0);
      if (attribute.name === 'style') references.push(...fromCss(cssReferences(attribute.value, false), valueStart));
      else if (urlAttributes.has(attribute.name))
        references.push(...fromCss(cssReferences(attribute.value, false), valueStart, attribute.name));
      else {
        const reference = attributeReference(tag, attribute);
        if (reference) references.push(reference);
      }
    }
  }
  for (; sheet < styleSheets.length; sheet += 1)
    references.push(...sheetReferences(html, styleSheets[sheet]!, fromCss));
  return references;
}

function sheetReferences(
  html: string,
  span: { start: number; end: number },
  fromCss: (css: CssReference[], offset: number) => TemplateReference[],
) {
  return fromCss(cssReferences(html.slice(span.start, span.end), true), span.start);
}

/** The references of a fetched style sheet's text, spans in it (what it imports is a 'stylesheet'). */
export function stylesheetReferences(css: string): TemplateReference[] {
  return cssReferences(css, true)
    .filter((reference) => loads(reference.url))
    .map((reference) => cssReference(reference));
}

// A CSS reference as a template reference; in an SVG attribute (filter="url(...)") it is left out.
function cssReference(reference: CssReference, inAttribute?: string): TemplateReference {
  const { url, syntax, start, end } = reference;
  if (inAttribute) return { kind: 'other', what: `${inAttribute}="url()"`, url, syntax, start, end };
  const kind = reference.kind === 'import' ? 'stylesheet' : reference.kind === 'font' ? 'font' : 'css';
  return { kind, what: kind === 'css' ? 'image' : kind, url, syntax, start, end };
}

// The reference an attribute makes, if it loads something.
function attributeReference(tag: HtmlTag, attribute: HtmlAttribute): TemplateReference | null {
  const { name } = attribute;
  if (!loadingAttributes.has(name)) return null;
  if ((name === 'href' || name === 'xlink:href') && linkElements.has(tag.name)) return null;
  if (name === 'data' && tag.name !== 'object') return null;
  const span = { url: attribute.value, syntax: 'attribute' as const, start: attribute.start, end: attribute.end };
  if (name === 'srcset' || name === 'imagesrcset') {
    const candidates = srcsetUrls(attribute.value).filter(loads);
    return candidates.length > 0
      ? { kind: 'other', what: `<${tag.name} ${name}>`, ...span, url: candidates[0]!, candidates }
      : null;
  }
  if (!loads(attribute.value)) return null;
  if (tag.name === 'img' && name === 'src') return { kind: 'img', what: 'image', ...span };
  if (tag.name !== 'link' || name !== 'href') return { kind: 'other', what: `<${tag.name} ${name}>`, ...span };
  const rel = (tag.attributes.find((other) => other.name === 'rel')?.value ?? '').toLowerCase().split(/[\t\n\f\r ]+/);
  if (rel.includes('stylesheet')) return { kind: 'stylesheet', what: 'stylesheet', ...span };
  const known = rel.find((token) => /^[a-z-]{1,30}$/.test(token));
  return { kind: 'other', what: known ? `<link rel=${known}>` : '<link href>', ...span };
}

// The URL of each candidate of a srcset ("a.png 1x, b.png 2x"), read as a browser does: separators,
// a URL up to a space (trailing commas end the candidate), then descriptors up to a comma.
function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  const candidate = /[\t\n\f\r ,]*([^\t\n\f\r ]+)/y;
  const descriptors = /[^,]*/y;
  for (let match = candidate.exec(srcset); match; match = candidate.exec(srcset)) {
    let url = match[1]!;
    let end = url.length;
    while (end > 0 && url[end - 1] === ',') end -= 1;
    if (end < url.length) url = url.slice(0, end);
    else {
      descriptors.lastIndex = candidate.lastIndex;
      descriptors.exec(srcset);
      candidate.lastIndex = descriptors.lastIndex;
    }
    if (url !== '') urls.push(url);
  }
  return urls;
}

// Whether a URL as written would load something: not empty, not a data: URI, not a fragment of the same document.
function loads(url: string): boolean {
  const written = url.trim();
  return written !== '' && !written.startsWith('#') && !/^data:/i.test(written);
}

/** The distinct images and style sheets `html` would have fetched and inlined (data: URIs are already inline). */
export function templateFetches(html: string): { images: Set<string>; stylesheets: Set<string> } {
  const references = templateReferences(html);
  const urls = (wanted: (kind: TemplateReference['kind']) => boolean) =>
    new Set(references.filter(({ kind }) => wanted(kind)).map(({ url }) => url.trim()));
  return {
    images: urls((kind) => kind === 'img' || kind === 'css'),
    stylesheets: urls((kind) => kind === 'stylesheet'),
  };
}

/** Whether an element of `html` has the class `url`, which Chromium fills with the document's URL; `scan` as above. */
export const usesUrlClass = (html: string, scan: HtmlScan = scanHtml(html)): boolean => usesClass(html, ['url'], scan);

/** Whether an element of `html` has one of `classes` (lower case); `scan` as above. */
export function usesClass(html: string, classes: readonly string[], scan: HtmlScan = scanHtml(html)): boolean {
  // In any case: the template is a quirks-mode document, where class names match regardless of case.
  return scan.tags.some((tag) =>
    tag.attributes.some(
      ({ name, value }) =>
        name === 'class' &&
        value
          .toLowerCase()
          .split(/[\t\n\f\r ]+/)
          .some((className) => classes.includes(className)),
    ),
  );
}
