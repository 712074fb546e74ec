/**
 * Web fonts and header and footer templates, on the page's side. Chromium draws a template in a
 * document of its own that loads nothing, so it uses a web font only when the page has already
 * loaded one from the very same URL (measured: a template's own data: URL font prints in the
 * fallback font; the same data: URL loaded by the page first prints in the web font). So the page
 * reads its document's `@font-face` rules for the families the templates name, and loads the
 * data: URLs the templates will carry before it prints. All of it in pdfrender's isolated world,
 * out of the document's reach, and never through the DevTools Runtime domain's events.
 */
import type { DocumentFaces } from '../font-faces.js';
import type { Slot } from './page-pool.js';
import { inPrintWorld } from './print-pdf.js';

// Where the loaded fonts are held until the print is done: a font no longer referenced may leave
// Chromium's memory cache, and with it the template's way to it.
const held = 'globalThis.__pdfrenderTemplateFonts';

// Reads the @font-face rules of the families in `wanted` (lower case) from a list of rules,
// following @import and grouping rules. Bounded in the page, so a document with many or huge faces
// answers small: at most `maxFaces` + 1 faces (one more tells there were more), and srcs of at most
// `maxChars` characters in all (a src past that is read as empty).
const readRules = `(wanted, maxChars, maxFaces, faces, opaque) => {
  let total = 0;
  const names = ['font-style', 'font-weight', 'font-stretch', 'unicode-range', 'font-feature-settings', 'size-adjust', 'ascent-override', 'descent-override', 'line-gap-override'];
  const unquote = (family) => family.trim().replace(/^(["'])(.*)\\1$/, '$2').trim().toLowerCase();
  const seen = new Set();
  const rules = (list, base) => {
    for (const rule of list) {
      if (faces.length > maxFaces) return;
      if (rule.type === 5) {
        const family = rule.style.getPropertyValue('font-family');
        if (!wanted.includes(unquote(family))) continue;
        const src = rule.style.getPropertyValue('src');
        const kept = total + src.length > maxChars ? '' : src;
        total += kept.length;
        const descriptors = {};
        for (const name of names) if (rule.style.getPropertyValue(name)) descriptors[name] = rule.style.getPropertyValue(name);
        faces.push({ family, src: kept, base, descriptors });
      } else if (rule.type === 3) {
        if (rule.styleSheet) sheet(rule.styleSheet);
      } else if (rule.cssRules) rules(rule.cssRules, base);
    }
  };
  const sheet = (style) => {
    if (seen.has(style)) return;
    seen.add(style);
    let list;
    try { list = style.cssRules; } catch { list = null; }
    if (list) rules(list, style.href ?? document.baseURI);
    else if (style.href) opaque.push(style.href);
  };
  return sheet;
}`;

// An expression that runs `body` with one reader of rules (`sheet`), so that its bounds hold over
// every sheet `body` reads, and answers the faces found.
const withReader = (wanted: string[], maxChars: number, maxFaces: number, body: string) => `(() => {
  const faces = [], opaque = [];
  const sheet = (${readRules})(${JSON.stringify(wanted)}, ${maxChars}, ${maxFaces}, faces, opaque);
  ${body}
  return { faces, opaque };
})()`;

/**
 * The document's `@font-face` rules for the families in `wanted` (lower case), from every style
 * sheet it may read, and the URLs of those it may not (another origin's).
 */
export async function readFontFaces(
  slot: Slot,
  wanted: string[],
  maxChars: number,
  maxFaces: number,
): Promise<DocumentFaces> {
  const body = `for (const style of document.styleSheets) sheet(style);
  for (const style of document.adoptedStyleSheets ?? []) sheet(style);`;
  return (await inPrintWorld(slot, withReader(wanted, maxChars, maxFaces, body))) as DocumentFaces;
}

/**
 * The `@font-face` rules for the families in `wanted` of style sheets fetched apart (those the page
 * may not read), parsed by Chromium itself; their relative URLs resolve against each sheet's URL.
 */
export async function parseFontFaces(
  slot: Slot,
  sheets: { href: string; text: string }[],
  wanted: string[],
  maxChars: number,
  maxFaces: number,
): Promise<Pick<DocumentFaces, 'faces'>> {
  const body = `for (const { href, text } of ${JSON.stringify(sheets)}) {
    const style = new CSSStyleSheet({ baseURL: href });
    try { style.replaceSync(text); } catch { continue; }
    const found = faces.length;
    sheet(style);
    for (const face of faces.slice(found)) face.base = href;
  }`;
  return (await inPrintWorld(slot, withReader(wanted, maxChars, maxFaces, body))) as DocumentFaces;
}

/** Load each data: URL as a font in the page and hold it until `forgetFonts`; true for each that loaded. */
export async function loadFonts(slot: Slot, urls: string[]): Promise<boolean[]> {
  const expression = `(async () => {
    const faces = ${JSON.stringify(urls)}.map((url) => new FontFace('pdfrender-template-font', 'url("' + url + '")'));
    ${held} = faces;
    const loaded = await Promise.allSettled(faces.map((face) => face.load()));
    return loaded.map((result) => result.status === 'fulfilled');
  })()`;
  return (await inPrintWorld(slot, expression)) as boolean[];
}

/** Let go of the fonts `loadFonts` held. */
export async function forgetFonts(slot: Slot): Promise<void> {
  await inPrintWorld(slot, `void (${held} = undefined)`);
}
