/**
 * What the report reads from the laid-out document before it prints, in one evaluation in
 * pdfrender's isolated world (print-pdf.ts), which the document's own script cannot reach: the
 * characters its text uses beyond ASCII (the candidates for missing glyphs, missing-glyphs.ts),
 * images that loaded but cannot be shown, @font-face rules whose font failed, and elements that run
 * past the right edge of the printable area (the page's viewport is that area, print-document.ts).
 * Every list is bounded in the page, so a huge document answers in a few kilobytes.
 */
import type { Slot } from '../pages/page-pool.js';
import { inPrintWorld } from '../pages/print-pdf.js';
import { reportBounds, type RenderReport } from './render-report.js';

/** What one inspection found. */
export interface Inspection {
  /** Distinct characters of the body's text and generated content beyond ASCII, up to maxCharacters. */
  characters: string;
  brokenImages: RenderReport['resources']['brokenImages'];
  failedFonts: RenderReport['fonts']['failed'];
  overflow: RenderReport['overflow'];
  /** The language the document declares (<html lang>, or the request's lang put there), '' for none. */
  lang: string;
}

/** Characters collected at most; a document using more distinct ones is checked on those. */
export const maxCharacters = 8192;
// Elements whose ::before and ::after content is read at most (icon fonts put their glyphs there).
const maxGeneratedElements = 3000;
// Elements looked at at most when the page is wider than its printable area.
const maxOverflowElements = 20000;

const script = `(() => {
  const bounds = ${JSON.stringify({ ...reportBounds, maxCharacters, maxGeneratedElements, maxOverflowElements })};
  const characters = new Set();
  // Only what is beyond ASCII is collected, found by the regular expression engine rather than a loop
  // over every character: most of a document is ASCII.
  const collect = (text) => {
    for (const [ch] of text.matchAll(/[^\\x00-\\x7e]/gu)) {
      if (characters.size >= bounds.maxCharacters) return;
      characters.add(ch);
    }
  };
  const skipped = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'TITLE']);
  const root = document.body || document.documentElement;
  const path = (element) => {
    const parts = [];
    for (let current = element; current && current.nodeType === 1 && parts.length < 6; current = current.parentElement) {
      let part = current.localName;
      if (current.id) { parts.unshift(part + '#' + CSS.escape(current.id)); break; }
      const classes = [...current.classList].slice(0, 2).map((name) => '.' + CSS.escape(name)).join('');
      const parent = current.parentElement;
      if (parent) {
        const same = [...parent.children].filter((child) => child.localName === current.localName);
        if (same.length > 1) part += ':nth-of-type(' + (same.indexOf(current) + 1) + ')';
      }
      parts.unshift(part + classes);
      if (current === document.body) break;
    }
    return parts.join(' > ').slice(0, 300);
  };
  if (root) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node && characters.size < bounds.maxCharacters; node = walker.nextNode())
      if (!skipped.has(node.parentElement && node.parentElement.tagName)) collect(node.data);
    // Generated content (::before, ::after) is read where the document has web fonts: that is how icon
    // fonts draw their glyphs, and reading every element's twice costs a few ms per document.
    if (document.fonts.size > 0) {
      let looked = 0;
      for (const element of root.querySelectorAll('*')) {
        if (looked++ >= bounds.maxGeneratedElements) break;
        for (const pseudo of ['::before', '::after']) {
          const content = getComputedStyle(element, pseudo).content;
          if (content && content !== 'none' && content !== 'normal') collect(content);
        }
      }
    }
  }
  const brokenImages = [];
  for (const image of document.images) {
    if (brokenImages.length >= bounds.brokenImages) break;
    const url = image.currentSrc || image.src;
    if (url && image.complete && image.naturalWidth === 0 && image.naturalHeight === 0)
      brokenImages.push({ url: url.slice(0, 2000), selector: path(image), reason: 'the image did not load or could not be decoded' });
  }
  const failedFonts = [];
  for (const face of document.fonts) {
    if (failedFonts.length >= bounds.failedFonts) break;
    if (face.status === 'error')
      failedFonts.push({ family: face.family.replace(/^["']|["']$/g, '').slice(0, 200), reason: 'the font did not load or is not a font Chromium can use' });
  }
  const overflow = [];
  const width = document.documentElement.clientWidth;
  if (root && document.documentElement.scrollWidth > width + 1) {
    let looked = 0;
    for (const element of root.querySelectorAll('*')) {
      if (looked++ >= bounds.maxOverflowElements || overflow.length >= bounds.overflow) break;
      const box = element.getBoundingClientRect();
      if (box.right <= width + 1 || box.width === 0) continue;
      // The outermost element that runs past the edge: its parent ends within it (or is the body).
      const parent = element.parentElement;
      if (parent && parent !== document.body && parent !== document.documentElement && parent.getBoundingClientRect().right > width + 1) continue;
      // Chromium lays a page out up to 1.5 times as wide and shrinks it to fit; past that it cuts.
      overflow.push({ selector: path(element), right: Math.round(box.right), printableWidth: width, cutOff: box.right > width * 1.5 + 1 });
    }
  }
  const lang = document.documentElement?.getAttribute('lang')?.trim() ?? '';
  return { characters: [...characters].join(''), brokenImages, failedFonts, overflow, lang };
})()`;

/** Inspect the slot's laid-out document; undefined when the page could not answer (the report then says so). */
export async function inspectDocument(slot: Slot): Promise<Inspection | undefined> {
  const found = (await inPrintWorld(slot, script).catch(() => undefined)) as Partial<Inspection> | undefined;
  if (!found || typeof found !== 'object') return undefined;
  return {
    characters: typeof found?.characters === 'string' ? found.characters : '',
    brokenImages: Array.isArray(found?.brokenImages) ? found.brokenImages : [],
    failedFonts: Array.isArray(found?.failedFonts) ? found.failedFonts : [],
    overflow: Array.isArray(found?.overflow) ? found.overflow : [],
    lang: typeof found?.lang === 'string' ? found.lang : '',
  };
}
