/**
 * Finding a document's page references before it prints: the rules of its CSS text that say
 * target-counter (target-counter-css.ts), the elements they give content to, and the destination
 * each one's target has in this document. A document without any is found out in one question to
 * the page, sent along with the print's own, and the text of the sheets it loaded, read meanwhile.
 */
import type { Slot } from './page-pool.js';
import { inPrintWorld } from './print-pdf.js';
import type { NotedSheets, SheetTexts } from './style-sheet-texts.js';
import { mentionsTargetCounter, referenceRules, type ReferenceRule } from './target-counter-css.js';

/** The document's rules with page references, and where each reference points. */
export interface References {
  rules: ReferenceRule[];
  /** Each target as written, to its destination name in this document, or null when it has no element here. */
  names: Map<string, string | null>;
}

/** At most this many elements get their references' numbers: a document with more gets the first ones'. */
export const maxElements = 10_000;
// At most this many sheets (of this many characters in all) and rules with references are read.
const bounds = { sheets: 32, chars: 4_000_000, rules: 200 };

// The texts of the document's <style> elements that mention target-counter, and the URLs of the
// style sheets it has (linked, and those they import where the page may read them: @import rules
// come first). Reads the DOM and a sheet's first rules only, so it costs the page next to nothing.
const readSheets = `(() => {
  const texts = [...document.querySelectorAll('style')].map((style) => style.textContent).filter((text) => /target-counter\\s*\\(/i.test(text));
  const loaded = new Set();
  const visit = (sheet) => {
    if (sheet.href) loaded.add(sheet.href);
    let rules = [];
    try { rules = sheet.cssRules; } catch {}
    for (const rule of rules) {
      if (rule.type === 3) { if (rule.styleSheet && !loaded.has(rule.styleSheet.href)) visit(rule.styleSheet); }
      else if (rule.constructor.name !== 'CSSLayerStatementRule') break;
    }
  };
  for (const sheet of document.styleSheets) visit(sheet);
  return { texts, loaded: [...loaded].slice(0, ${bounds.sheets}) };
})()`;

/**
 * The document's page references, or undefined when its CSS has none (the usual case): from its
 * <style> elements, the sheets it loaded (`noted`), and those it has from Chromium's memory cache
 * (their text in `store`). Its first question to the page is sent at once, so it can go along with
 * the print's own (the page answers in turn).
 */
export async function findReferences(
  slot: Slot,
  noted: NotedSheets,
  store: SheetTexts,
): Promise<References | undefined> {
  const [answer, fetched] = await Promise.all([
    inPrintWorld(slot, readSheets),
    noted.texts(bounds.sheets, bounds.chars),
  ]);
  // Nothing (the expression threw) when the document made the DOM's own methods throw: no references then.
  const listed = (answer ?? { texts: [], loaded: [] }) as { texts: string[]; loaded: string[] };
  // A sheet's text from the store only where the page has the sheet: one it could not load is not read.
  const loaded = listed.loaded.flatMap((url) => (fetched.has(url) ? [] : [store.get(url) ?? '']));
  let chars = 0;
  const sheets = [...listed.texts, ...fetched.values(), ...loaded].filter(
    (text) => mentionsTargetCounter(text) && (chars += text.length) <= bounds.chars,
  );
  const rules = sheets.length > 0 ? referenceRules(sheets, bounds.rules) : [];
  if (rules.length === 0) return undefined;
  const query = rules.map((rule) => ({
    bases: rule.selectors.map((selector) => selector.base),
    attrs: rule.parts.flatMap((part) => ('target' in part ? ['attr' in part.target ? part.target.attr : null] : [])),
    urls: rule.parts.flatMap((part) => ('target' in part && 'url' in part.target ? [part.target.url] : [])),
  }));
  const placed = ((await inPrintWorld(slot, `(${placeTargets})(${JSON.stringify(query)}, ${maxElements})`)) ?? {
    elements: 0,
    names: [],
  }) as { elements: number; names: Array<[string, string | null]> };
  // Rules that match no element (a print style of another document) cost nothing either.
  if (placed.elements === 0) return undefined;
  return { rules, names: new Map(placed.names) };
}

/**
 * In the page: `visit(element, index)` for each element the selectors (`bases`) of `rules[index]`
 * match, `max` elements at most in all (a selector Chromium refuses matches none); answers how many.
 */
export const eachElement = `(rules, max, visit) => {
  let count = 0;
  rules.forEach(({ bases }, index) => {
    for (const base of bases) {
      let matched = [];
      try { matched = document.querySelectorAll(base); } catch {}
      for (const element of matched) {
        if (count >= max) return;
        count += 1;
        visit(element, index);
      }
    }
  });
  return count;
}`;

// In the page: how many elements the rules give content to, and each target's destination name:
// the fragment of a URL into this document, as Chromium names its destination, when an element has it.
const placeTargets = `(rules, maxElements) => {
  const here = document.URL.split('#')[0];
  const names = new Map(); // not an object: a target may be written "constructor"
  const resolve = (value) => {
    if (value === null || names.has(value)) return;
    let name = null;
    try {
      const url = new URL(value, document.baseURI);
      const id = url.hash.slice(1);
      let decoded = id;
      try { decoded = decodeURIComponent(id); } catch {}
      if (id && url.href.split('#')[0] === here && (document.getElementById(id) || document.getElementById(decoded) || document.getElementsByName(decoded).length > 0)) name = id;
    } catch {}
    names.set(value, name);
  };
  for (const { urls } of rules) urls.forEach(resolve);
  const elements = (${eachElement})(rules, maxElements, (element, index) => {
    for (const attr of rules[index].attrs) if (attr !== null) resolve(element.getAttribute(attr));
  });
  return { elements, names: [...names] };
}`;
