/**
 * The start tags of caller HTML (a header or footer template) with their attributes, and where its
 * style sheets' text is, read in one pass as an HTML parser tokenizes: comments and the text of
 * `<script>`, `<textarea>` and the like hold no tags, a `>` inside a quoted value does not end a
 * tag, and a tag cut off by the end of the text is no tag at all. Linear in the text's length
 * whatever it holds (see forward-search.ts): each position is read once.
 */
import { forwardIndex, forwardSearch, stickyAt, type ForwardSearch } from './forward-search.js';

/** One attribute as written: lower-cased name, value, and the value's span (quotes included; empty where it has none). */
export interface HtmlAttribute {
  name: string;
  value: string;
  start: number;
  end: number;
}

/** One start tag: lower-cased name, its span, its attributes (the first of each name, as a parser keeps). */
export interface HtmlTag {
  name: string;
  start: number;
  end: number;
  attributes: HtmlAttribute[];
}

/** What one pass over `html` found. */
export interface HtmlScan {
  tags: HtmlTag[];
  /** The text of each `<style>` element, which is CSS. */
  styleSheets: Array<{ start: number; end: number }>;
}

// Elements whose text is not markup, up to their end tag. Not <noscript>: it holds markup where
// scripts are off, so what is in it is read as markup (seen and handled either way).
const rawText = new Set(['style', 'script', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes']);
// Inside SVG and MathML a `<style/>` is empty; elsewhere the slash is ignored.
const foreign = new Set(['svg', 'math']);

/** Every start tag of `html` and the text of its `<style>` elements. */
export function scanHtml(html: string): HtmlScan {
  const opens = forwardSearch(html, /<(?:!--|[!?/]|[a-z])/i);
  const commentEnd = forwardIndex(html, /-->/);
  const tagEnd = forwardIndex(html, />/);
  const quoteEnd = { '"': forwardIndex(html, /"/), "'": forwardIndex(html, /'/) };
  const endTags = new Map<string, ForwardSearch>();
  const endTag = (name: string) =>
    endTags.get(name) ??
    endTags.set(name, forwardSearch(html, new RegExp(`</${name}[\\t\\n\\f\\r />]`, 'i'))).get(name)!;
  const tags: HtmlTag[] = [];
  const styleSheets: HtmlScan['styleSheets'] = [];
  let foreignDepth = 0;
  let position = 0;
  for (let open = opens(position); open; open = opens(position)) {
    const at = open.index;
    if (open[0] === '<!--') {
      // `<!-->` and `<!--->` are whole comments, as a parser reads them.
      position = html.startsWith('<!-->', at)
        ? at + 5
        : html.startsWith('<!--->', at)
          ? at + 6
          : commentEnd(at + 4) + 3;
      continue;
    }
    if (!/[a-z]/i.test(open[0][1]!)) {
      // An end tag, `<!doctype>` or a bogus comment: nothing in it loads.
      if (/^<\/(?:svg|math)[\t\n\f\r />]/i.test(html.slice(at, at + 7))) foreignDepth = Math.max(0, foreignDepth - 1);
      position = tagEnd(at + 2) + 1;
      continue;
    }
    const found = startTag(html, at, quoteEnd);
    if (!found) break; // cut off by the end of the text: a parser drops it, and nothing comes after it
    const { tag, selfClosing } = found;
    tags.push(tag);
    position = tag.end;
    if (foreign.has(tag.name) && !selfClosing) foreignDepth += 1;
    if (rawText.has(tag.name) && !(foreignDepth > 0 && selfClosing)) {
      const close = endTag(tag.name)(position)?.index ?? html.length;
      if (tag.name === 'style') styleSheets.push({ start: position, end: close });
      position = close;
    }
  }
  return { tags, styleSheets };
}

const space = /[\t\n\f\r /]*/y;
const blank = /[\t\n\f\r ]*/y;
const tagName = /[^\t\n\f\r />]*/y;
const attributeName = /[^\t\n\f\r />][^\t\n\f\r />=]*/y;
const bareValue = /[^\t\n\f\r >]*/y;

// The start tag at `at` (`<` and a letter), or null when the text ends inside it.
function startTag(
  html: string,
  at: number,
  quoteEnd: Record<'"' | "'", (from: number) => number>,
): { tag: HtmlTag; selfClosing: boolean } | null {
  const name = stickyAt(tagName, html, at + 1);
  const attributes: HtmlAttribute[] = [];
  const names = new Set<string>();
  let i = at + 1 + name.length;
  for (;;) {
    const gap = stickyAt(space, html, i);
    i += gap.length;
    if (i >= html.length) return null;
    if (html[i] === '>') {
      const tag = { name: name.toLowerCase(), start: at, end: i + 1, attributes };
      return { tag, selfClosing: gap.endsWith('/') };
    }
    const attribute = stickyAt(attributeName, html, i).toLowerCase();
    i += attribute.length;
    i += stickyAt(blank, html, i).length;
    let value = { value: '', start: i, end: i };
    if (html[i] === '=') {
      i += 1;
      i += stickyAt(blank, html, i).length;
      const quote = html[i];
      if (quote === '"' || quote === "'") {
        const close = quoteEnd[quote](i + 1);
        if (close >= html.length) return null;
        value = { value: html.slice(i + 1, close), start: i, end: close + 1 };
      } else {
        const bare = stickyAt(bareValue, html, i);
        value = { value: bare, start: i, end: i + bare.length };
      }
      i = value.end;
    }
    if (!names.has(attribute)) attributes.push({ name: attribute, ...value });
    names.add(attribute);
  }
}
