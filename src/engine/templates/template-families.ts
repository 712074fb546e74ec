/**
 * The font families a header or footer template could ask for, read from its CSS text, and the
 * web fonts it carries as data: URLs. The names decide which of the document's own `@font-face`
 * rules the template is given (body-faces.ts); reading more names than are used costs at most a
 * font the template does not draw with, so the reading is loose: every name a `font-family` or
 * `font` declaration could hold, however the declaration ends. Linear in the text's length.
 */
import { cssReferences } from '../../markup/css-references.js';

// A font-family or font declaration's value, up to where a declaration or a rule ends.
const declarations = /(?<![\w-])font(?:-family)?\s*:\s*([^;{}<>]*)/gi;

/** The family names (in lower case) that the `font-family` and `font` declarations of `css` could name. */
export function namedFamilies(css: string): Set<string> {
  const names = new Set<string>();
  for (const [, value] of css.matchAll(declarations)) {
    for (const part of value!.replace(/!\s*important/gi, '').split(',')) {
      // Quoted names are one name each; the words outside quotes may be one too, and a `font`
      // shorthand puts the family after the size, so the last words count. The value may run
      // on into a style attribute's closing quote: outside quotes, that adds nothing.
      part
        .toLowerCase()
        .split(/["']/)
        .forEach((segment, index) => {
          if (index % 2 === 1) return void names.add(segment.trim());
          const words = segment.split(/\s+/).filter(Boolean);
          names.add(words.join(' '));
          // Family names of more than four words are left to the whole segment (bounds the work).
          for (let first = Math.max(1, words.length - 4); first < words.length; first += 1)
            names.add(words.slice(first).join(' '));
        });
    }
  }
  for (const generic of genericFamilies) names.delete(generic);
  return names;
}

// Names that are never a @font-face's: generic families and CSS-wide keywords.
const genericFamilies = new Set(
  'serif sans-serif monospace cursive fantasy system-ui ui-serif ui-sans-serif ui-monospace ui-rounded math emoji fangsong inherit initial unset revert revert-layer'.split(
    ' ',
  ),
);

/** The data: URLs of the web fonts in the `@font-face` rules of `css` (a style sheet's text), as written. */
export function dataFonts(css: string): string[] {
  return cssReferences(css, true)
    .filter(({ kind, url }) => kind === 'font' && /^data:/i.test(url.trim()))
    .map(({ url }) => url.trim());
}
