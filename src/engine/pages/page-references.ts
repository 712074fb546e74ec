/**
 * Page references (`content: target-counter(attr(href), page)`), which Chromium drops as invalid:
 * the document prints once, each link target's page is read from the PDF's named destinations
 * (pdf-destinations.ts), and a style sheet of pdfrender's, adopted from its isolated world, gives each
 * referring pseudo-element its content with the numbers written in; then it prints again, and once
 * more if the numbers moved a target to another page. A document whose CSS never says
 * target-counter is found out before its first print, in one round trip (two with linked sheets),
 * and prints once as before.
 */
import type { RenderReport } from '../report/render-report.js';
import { destinationPages } from './pdf-destinations.js';
import type { Slot } from './page-pool.js';
import { inPrintWorld } from './print-pdf.js';
import {
  cssString,
  formatCounter,
  mentionsTargetCounter,
  referenceRules,
  type ReferenceRule,
} from './target-counter-css.js';

/** The document's rules with page references, and where each reference points. */
export interface References {
  rules: ReferenceRule[];
  /** Per rule, each distinct combination of its elements' attribute values (null for a literal URL's place). */
  tuples: Array<Array<Array<string | null>>>;
  /** Each target as written, to its destination name in this document, or null when it has no element here. */
  names: Map<string, string | null>;
}

// A style sheet's text as the page loaded it; empty when the page has none by that URL.
const sheetText = (slot: Slot, url: string): Promise<string> =>
  slot.client
    .send('Page.getResourceContent', { frameId: slot.state.frameId, url })
    .then(({ content, base64Encoded }) => (base64Encoded ? Buffer.from(content, 'base64').toString() : content))
    .catch(() => '');

/** Prints and the number of the last one, at most; the report's pageReferences. */
export const maxPasses = 3;
const bounds = { sheets: 32, chars: 4_000_000, rules: 200, tuples: 10_000, unresolved: 20 };

// The texts of the document's <style> elements that mention target-counter, and the URLs of its
// linked and imported sheets, whose text is not in the page (Chromium dropped the declarations).
// Only the DOM is read, not the style sheets' rules, so this costs the page next to nothing.
const readSheets = `(() => {
  const texts = [], urls = [];
  const imports = (text, base) => {
    for (const match of text.matchAll(/@import\\s+(?:url\\(\\s*)?["']?([^"')\\s;]+)/gi))
      try { urls.push(new URL(match[1], base).href); } catch {}
  };
  for (const style of document.querySelectorAll('style')) {
    const text = style.textContent;
    if (/target-counter\\s*\\(/i.test(text)) texts.push(text);
    if (text.includes('@import')) imports(text, document.baseURI);
  }
  for (const link of document.querySelectorAll('link[rel~="stylesheet" i][href]')) urls.push(link.href);
  return { texts, urls };
})()`;

/**
 * The document's page references, or undefined when its CSS has none (the usual case). Its first
 * question to the page is sent at once, so it can go along with the print's own (the page answers
 * in turn); the text of linked sheets comes as Chromium loaded it (file:, another origin's), never
 * fetched again.
 */
export async function findReferences(slot: Slot): Promise<References | undefined> {
  const listed = (await inPrintWorld(slot, readSheets)) as { texts: string[]; urls: string[] };
  const sheets = [...listed.texts];
  const seen = new Set<string>();
  let chars = 0;
  // Linked sheets, then the sheets they import, a wave at a time, at most bounds.sheets in all.
  for (let wave = listed.urls; wave.length > 0;) {
    const urls = [...new Set(wave)].filter((url) => !seen.has(url)).slice(0, bounds.sheets - seen.size);
    for (const url of urls) seen.add(url);
    const texts = await Promise.all(urls.map((url) => sheetText(slot, url)));
    wave = [];
    texts.forEach((text, index) => {
      if (mentionsTargetCounter(text) && (chars += text.length) <= bounds.chars) sheets.push(text);
      for (const [, url] of text.matchAll(/@import\s+(?:url\(\s*)?["']?([^"')\s;]+)/gi)) {
        const resolved = URL.parse(url!, urls[index]);
        if (resolved) wave.push(resolved.href);
      }
    });
  }
  const rules = sheets.length > 0 ? referenceRules(sheets, bounds.rules) : [];
  if (rules.length === 0) return undefined;
  const query = rules.map((rule) => ({
    bases: rule.selectors.map((selector) => selector.base),
    attrs: rule.parts.flatMap((part) => ('target' in part ? ['attr' in part.target ? part.target.attr : null] : [])),
    urls: rule.parts.flatMap((part) => ('target' in part && 'url' in part.target ? [part.target.url] : [])),
  }));
  const placed = (await inPrintWorld(slot, `(${placeTargets})(${JSON.stringify(query)}, ${bounds.tuples})`)) as {
    tuples: References['tuples'];
    names: Record<string, string | null>;
  };
  // Rules that match no element (a print style of another document) cost nothing either.
  if (placed.tuples.every((tuples) => tuples.length === 0)) return undefined;
  return { rules, tuples: placed.tuples, names: new Map(Object.entries(placed.names)) };
}

// In the page: each rule's elements' attribute values, and each target's destination name: the
// fragment of a URL into this document, as Chromium names its destination, when an element has it.
const placeTargets = `(rules, maxTuples) => {
  const here = document.URL.split('#')[0];
  const names = {};
  let count = 0;
  const resolve = (value) => {
    if (value in names) return;
    let name = null;
    try {
      const url = new URL(value, document.baseURI);
      const id = url.hash.slice(1);
      let decoded = id;
      try { decoded = decodeURIComponent(id); } catch {}
      if (id && url.href.split('#')[0] === here && (document.getElementById(id) || document.getElementById(decoded) || document.getElementsByName(decoded).length > 0)) name = id;
    } catch {}
    names[value] = name;
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
  return { tuples, names };
}`;

/** The page of each target as written, from a printed PDF (undefined: no page found for it). */
export function targetPages(references: References, pdf: Uint8Array): Map<string, number | undefined> {
  const pages = destinationPages(pdf) ?? new Map<string, number>();
  return new Map([...references.names].map(([value, name]) => [value, name === null ? undefined : pages.get(name)]));
}

/** pdfrender's style sheet that writes `pages` into the references' content; "??" where a target has none. */
export function numbersSheet(references: References, pages: Map<string, number | undefined>): string {
  const attrSelector = (attr: string, value: string) => `[${attr}=${cssString(value)}]`;
  return references.rules
    .flatMap((rule, index) =>
      references.tuples[index]!.flatMap((tuple) => {
        const refs = rule.parts.filter((part) => 'target' in part);
        const content = rule.parts
          .map((part) => {
            if ('css' in part) return part.css;
            const k = refs.indexOf(part);
            const page = pages.get(tuple[k] ?? ('url' in part.target ? part.target.url : ''));
            return cssString(page === undefined ? '??' : formatCounter(page, part.style));
          })
          .join('');
        const attrs = refs.map((part, k) => ('attr' in part.target ? attrSelector(part.target.attr, tuple[k]!) : ''));
        return rule.selectors.map(
          ({ base, pseudo }) => `${base}${attrs.join('')}::${pseudo} { content: ${content} !important; }`,
        );
      }),
    )
    .join('\n');
}

// The sheet lives in the isolated world: the document's own script never sees it in a global.
const held = 'globalThis.__pdfrenderPageNumbers';

/** Adopt `css` as pdfrender's sheet of page numbers (in place of the last one). */
export async function writeNumbers(slot: Slot, css: string): Promise<void> {
  await inPrintWorld(
    slot,
    `(() => {
      const sheet = (${held} ??= new CSSStyleSheet());
      sheet.replaceSync(${JSON.stringify(css)});
      if (!document.adoptedStyleSheets.includes(sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    })()`,
  );
}

/** Take pdfrender's sheet of page numbers off the document, so the page's next document starts without it. */
export async function forgetNumbers(slot: Slot): Promise<void> {
  await inPrintWorld(
    slot,
    `(() => {
      const sheet = ${held};
      if (sheet) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((adopted) => adopted !== sheet);
      ${held} = undefined;
    })()`,
  );
}

/**
 * The print with the numbers written in, from `first`, the document printed whole without them.
 * `print(true)` prints the whole document (references count its pages, whatever the request's
 * pageRanges), `print(false)` as the request asks, once more at the end when `ranged`. Prints again
 * while a number written moved a target to another page, at most `maxPasses` prints in all.
 */
export async function printWithReferences(
  slot: Slot,
  references: References,
  first: Uint8Array,
  print: (whole: boolean) => Promise<Uint8Array>,
  ranged: boolean,
): Promise<{ pdf: Uint8Array; pageReferences: NonNullable<RenderReport['pageReferences']> }> {
  let pdf = first;
  let passes = 1;
  let pages = targetPages(references, pdf);
  let written: typeof pages | undefined;
  while (!(written && samePages(written, pages)) && passes < maxPasses) {
    await writeNumbers(slot, numbersSheet(references, pages));
    written = pages;
    pdf = await print(true);
    passes += 1;
    pages = targetPages(references, pdf);
  }
  if (ranged) pdf = await print(false);
  const unresolved = [...pages].filter(([, page]) => page === undefined).map(([value]) => value);
  return {
    pdf,
    pageReferences: {
      passes,
      settled: written !== undefined && samePages(written, pages),
      unresolved: unresolved.slice(0, bounds.unresolved),
    },
  };
}

const samePages = (a: Map<string, number | undefined>, b: Map<string, number | undefined>) =>
  [...a].every(([value, page]) => b.get(value) === page);
