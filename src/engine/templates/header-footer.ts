/**
 * Header and footer templates with readable defaults.
 *
 * Chromium prints templates in a separate document whose text defaults to a size below 1pt, flush
 * against the paper's edge, without backgrounds: the first thing every user trips over. We put a
 * style sheet with sane defaults before the user's template; the user's own rules come later in
 * the same document, or are more specific, so explicit styles still win.
 *
 * Chromium's #header and #footer are flex rows, so what a template puts at its top level is
 * shrink-wrapped: a `<div style="text-align: right">` is as wide as its text and stays at the
 * left, a centred "Page 1 of 2" too. A template with one element at its top level (style sheets
 * aside), or that starts or ends with text, is laid out as a page's body lays it out instead: a
 * block as wide as the header, the footer's content at the bottom as before (align-content on a
 * block, Chromium 123 on). One with several elements and no text at its edges keeps Chromium's row
 * (two divs of width:50% side by side, a span pushed right by margin-left:auto), which the
 * templates written for it rely on. The 4/3 scale old Chromium gave template text (puppeteer
 * issues 1853, 2104) is gone: 16px prints as 12pt there as in the body (measured on Chromium 156),
 * so there is nothing to undo.
 */
import { formatInches } from '../../length.js';

/** The default font size of header and footer text. */
export const defaultTemplateFontSize = '10px';

/** Chromium prints its own date/title header when a template is empty, so "none" must be an empty element. */
const emptyTemplate = '<span></span>';

export interface TemplateInsets {
  /** Left and right page margins in inches; template text is inset by the same amounts as the body. */
  left: number;
  right: number;
}

/** The template Chromium gets for one side (header or footer); null when the request has none. */
export function buildTemplate(html: string | null, insets: TemplateInsets): string {
  if (!html) return emptyTemplate;
  const defaults =
    `#header, #footer { font-size: ${defaultTemplateFontSize}; ` +
    `padding-left: ${formatInches(insets.left)}; padding-right: ${formatInches(insets.right)}; ` +
    '-webkit-print-color-adjust: exact; print-color-adjust: exact; }';
  return `<style>${defaults}${textAtEdge(html) ? textAsBody : asBody}</style>${html}`;
}

/**
 * `template` (as buildTemplate made it) without the style sheet buildTemplate put first, for a search
 * of the caller's own part: that sheet holds no "<", so it ends at the first "</style>".
 */
export const withoutDefaults = (template: string): string =>
  template.replace(/^<style>#header, #footer \{[^<]*<\/style>/, '');

// What may stand beside the one element without making a row: elements that are not laid out.
const unseen = ':not(style, link, script, template, base, meta, title, noscript)';
// In :where(), so a template's own #header rule (later in the document) still wins.
const asBody = ['#header', '#footer']
  .map((side) => `${side}:where(:not(:has(> ${unseen} ~ ${unseen})))`)
  .join(', ')
  .concat(' { display: block; } #footer { align-content: end; }');
// A template that starts or ends with text of its own ("Page <span class="pageNumber"></span> of
// <span class="totalPages"></span>") is a line of text whatever else it holds: in Chromium's row
// each piece is an item of its own and the spaces between them are lost ("Page1of2"). As specific
// as Chromium's own #header rule, which it follows, and as a template's, which follows it.
const textAsBody = '#header, #footer { display: block; } #footer { align-content: end; }';

// Comments and style sheets a template may start with, one at a time.
const leading = /\s*(?:<!--[\s\S]*?-->|<style\b[\s\S]*?<\/style\s*>|<(?:link|meta|base)\b[^>]*>)/iy;

// Whether `html` starts with text (after any comments and style sheets) or ends with it. Each
// character is read a bounded number of times, whatever the template holds.
function textAtEdge(html: string): boolean {
  leading.lastIndex = 0;
  let start = 0;
  while (leading.exec(html)) start = leading.lastIndex;
  const first = html.slice(start).trimStart();
  if (first !== '' && !first.startsWith('<')) return true;
  return html.slice(html.lastIndexOf('>') + 1).trim() !== '';
}
