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
  /** Per rule, each distinct combination of its elements' attribute values (null for a literal URL's place). */
  tuples: Array<Array<Array<string | null>>>;
  /** Each target as written, to its destination name in this document, or null when it has no element here. */
  names: Map<string, string | null>;
}

// At most this many sheets (of this many characters in all), rules with references, and distinct
// elements' targets: a document with more is printed with the first ones' numbers.
const bounds = { sheets: 32, chars: 4_000_000, rules: 200, tuples: 10_000 };

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
  const placed = ((await inPrintWorld(slot, `(${placeTargets})(${JSON.stringify(query)}, ${bounds.tuples})`)) ?? {
    tuples: [],
    names: {},
  }) as { tuples: References['tuples']; names: Record<string, string | null> };
  // Rules that match no element (a print style of another document) cost nothing either.
  if (placed.tuples.every((tuples) => tuples.length === 0)) return undefined;
  return { rules, tuples: placed.tuples, names: new Map(Object.entries(placed.names)) };
}

// In the page: each rule's elements' attribute values, and each target's destination name: the
// fragment of a URL into this document, as Chromium names its destination, when an element has it.
const placeTargets = `(rules, maxTuples) => {
  const here = document.URL.split('#')[0];
  const names = new Map(); // not an object: a target may be written "constructor"
  let count = 0;
  const resolve = (value) => {
    if (names.has(value)) return;
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
  const tuples = rules.map(({ bases, attrs, urls }) => {
    urls.forEach(resolve);
    const found = new Map();
    for (const base of bases) {
      let elements = [];
      try { elements = document.querySelectorAll(base); } catch {}
      for (const element of elements) {
        if (count >= maxTuples) break;
        const values = attrs.map((attr) => (attr === null ? null : element.getAttribute(attr)));
        if (values.some((value, i) => value === null && attrs[i] !== null)) continue;
        const key = JSON.stringify(values);
        if (found.has(key)) continue;
        found.set(key, values);
        count += 1;
        values.forEach((value) => value !== null && resolve(value));
      }
    }
    return [...found.values()];
  });
  return { tuples, names: Object.fromEntries(names) };
}`;
