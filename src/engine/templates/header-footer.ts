/**
 * Header and footer templates with readable defaults.
 *
 * Chromium prints templates in a separate document whose text defaults to a size below 1pt, flush
 * against the paper's edge, without backgrounds: the first thing every user trips over. We put a
 * style sheet with sane defaults before the user's template; the user's own rules come later in
 * the same document, or are more specific, so explicit styles still win.
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
  return `<style>${defaults}</style>${html}`;
}
