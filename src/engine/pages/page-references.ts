/**
 * Page references (`content: target-counter(attr(href), page)`), which Chromium drops as invalid:
 * the document prints once, each link target's page is read from the PDF's named destinations
 * (pdf-destinations.ts), and a style sheet of pdfrender's, adopted from its isolated world, gives each
 * referring pseudo-element its content with the numbers written in; then it prints again, and once
 * more if the numbers moved a target to another page. A document whose CSS never says
 * target-counter is found out by a question sent before its first print and answered along with it
 * (find-references.ts), and prints once as before.
 */
import type { RenderReport } from '../report/render-report.js';
import { destinationPages } from './pdf-destinations.js';
import type { Slot } from './page-pool.js';
import { eachElement, findReferences, maxElements, type References } from './find-references.js';
import { inPrintWorld } from './print-pdf.js';
import type { NotedSheets, SheetTexts } from './style-sheet-texts.js';
import { formatCounter } from './target-counter-css.js';

// Prints at most, the first included.
const maxPasses = 3;
type PageReferences = NonNullable<RenderReport['pageReferences']>;
// Targets the report names as unresolved, at most.
const maxUnresolved = 20;

// The page of each target as written, from a printed PDF (undefined: no page found for it).
function targetPages(references: References, pdf: Uint8Array): Map<string, number | undefined> {
  const pages = destinationPages(pdf) ?? new Map<string, number>();
  return new Map([...references.names].map(([value, name]) => [value, name === null ? undefined : pages.get(name)]));
}

// An attribute pdfrender gives each element a rule gives content to: the number of the rule's `k`th
// reference, as text. Attributes and one rule per selector rather than a rule per target: 3000 rules
// of `a[href="#x"]::after` would each be matched against each of the 3000 links of a long table.
const numberAttribute = (rule: number, k: number) => `data-pdfrender-page-${rule}-${k}`;

// pdfrender's style sheet: each rule's content as written, its page references read from the
// attributes; only for an element that has them all (one without the attribute the rule reads has none).
function numbersSheet(references: References): string {
  return references.rules
    .flatMap(({ selectors, parts }, rule) => {
      let k = 0;
      const content = parts.map((part) => ('css' in part ? part.css : `attr(${numberAttribute(rule, k++)})`)).join('');
      const has = Array.from({ length: k }, (_, i) => `[${numberAttribute(rule, i)}]`).join('');
      return selectors.map(({ base, pseudo }) => `${base}${has}::${pseudo} { content: ${content} !important; }`);
    })
    .join('\n');
}

// In the page: each element the rules give content to gets its references' numbers as attributes;
// `texts` has, for each counter style, each target as written and its number ("??" when none).
const markElements = `(rules, texts, maxElements) => {
  const styles = new Map(Object.entries(texts).map(([style, pairs]) => [style, new Map(pairs)]));
  (${eachElement})(rules, maxElements, (element, rule) => {
    rules[rule].refs.forEach(({ attr, url, style }, k) => {
      const value = attr === null ? url : element.getAttribute(attr);
      if (value !== null) element.setAttribute('data-pdfrender-page-' + rule + '-' + k, styles.get(style).get(value) ?? '??');
    });
  });
}`;

// The sheet lives in the isolated world: the document's own script never sees it in a global.
const held = 'globalThis.__pdfrenderPageNumbers';

// Write `pages` into the document: the referring elements' attributes, and pdfrender's sheet adopted
// (once: it reads the attributes, which are all that change from one print to the next).
async function writeNumbers(slot: Slot, references: References, pages: Map<string, number | undefined>): Promise<void> {
  const rules = references.rules.map(({ selectors, parts }) => ({
    bases: selectors.map(({ base }) => base),
    refs: parts.flatMap((part) =>
      'target' in part
        ? [
            {
              attr: 'attr' in part.target ? part.target.attr : null,
              url: 'url' in part.target ? part.target.url : null,
              style: part.style,
            },
          ]
        : [],
    ),
  }));
  const styles = new Set(rules.flatMap((rule) => rule.refs.map((ref) => ref.style)));
  const texts = Object.fromEntries(
    [...styles].map((style) => [
      style,
      [...pages].map(([value, page]) => [value, page === undefined ? '??' : formatCounter(page, style)]),
    ]),
  );
  await inPrintWorld(
    slot,
    `(() => {
      (${markElements})(${JSON.stringify(rules)}, ${JSON.stringify(texts)}, ${maxElements});
      if (${held}) return;
      ${held} = new CSSStyleSheet();
      ${held}.replaceSync(${JSON.stringify(numbersSheet(references))});
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, ${held}];
    })()`,
  );
}

// Take pdfrender's sheet of page numbers off the document, so the page's next document starts without it.
async function forgetNumbers(slot: Slot): Promise<void> {
  await inPrintWorld(
    slot,
    `(() => {
      const sheet = ${held};
      if (sheet) document.adoptedStyleSheets = document.adoptedStyleSheets.filter((adopted) => adopted !== sheet);
      ${held} = undefined;
    })()`,
  );
}

/*
 * The print with the numbers written in, from `first`, the document printed whole without them.
 * `print(true)` prints the whole document (references count its pages, whatever the request's
 * pageRanges), `print(false)` as the request asks, once more at the end when `ranged`. Prints again
 * while a number written moved a target to another page, at most `maxPasses` prints in all.
 */
async function printWithReferences(
  slot: Slot,
  references: References,
  first: Uint8Array,
  print: (whole: boolean) => Promise<Uint8Array>,
  ranged: boolean,
): Promise<{ pdf: Uint8Array; pageReferences: PageReferences }> {
  let pdf = first;
  let passes = 1;
  let pages = targetPages(references, pdf);
  let written: typeof pages | undefined;
  while (!(written && samePages(written, pages)) && passes < maxPasses) {
    await writeNumbers(slot, references, pages);
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
      unresolved: unresolved.slice(0, maxUnresolved),
    },
  };
}

/** How a document is printed, for printWithPageNumbers. */
export interface PrintSteps {
  /** Print the whole document (`whole`), or as the request asks (its pageRanges). */
  print(whole: boolean): Promise<Uint8Array>;
  /** Anything else printed from the document as it last printed (page 1 with its own templates). */
  after(): Promise<Uint8Array | undefined>;
  /** The request has pageRanges: the first print must be of the whole document if it has references. */
  ranged: boolean;
}

/**
 * The document printed, with its page references' numbers written in when it has any, and what
 * `steps.after` printed with them. The references are asked for before the first print and answered
 * along with it; only a window without pdfrender's world yet (made once, by this question) and a
 * pageRanges wait for the answer first.
 */
export async function printWithPageNumbers(
  slot: Slot,
  sheets: { noted: NotedSheets; store: SheetTexts },
  steps: PrintSteps,
): Promise<{ pdf: Uint8Array; after?: Uint8Array; pageReferences?: PageReferences }> {
  const finding = findReferences(slot, sheets.noted, sheets.store);
  finding.catch(() => undefined);
  let references = slot.printWorld === undefined || steps.ranged ? await finding : undefined;
  let failed = false;
  try {
    let pdf = await steps.print(references !== undefined);
    references ??= await finding;
    let pageReferences: PageReferences | undefined;
    if (references)
      ({ pdf, pageReferences } = await printWithReferences(slot, references, pdf, steps.print, steps.ranged));
    const after = await steps.after();
    return { pdf, ...(after && { after }), ...(pageReferences && { pageReferences }) };
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // The page's next document is written into the same document object (document.open), which
    // keeps its adopted sheets: taken off whatever happened, without hiding why a print failed.
    if (references)
      await forgetNumbers(slot).catch((error: unknown) => {
        if (!failed) throw error;
      });
  }
}

/** The render's warnings about its page references: targets not found, numbers that did not settle. */
export function referenceWarnings(references: RenderReport['pageReferences']): string[] {
  if (!references) return [];
  const { unresolved, settled } = references;
  return [
    ...(unresolved.length > 0
      ? [`page references to ${unresolved.join(', ')} printed "??": no such element is printed in the document`]
      : []),
    ...(settled ? [] : [`page references may be one page off: they still moved a target after ${maxPasses} prints`]),
  ];
}

const samePages = (a: Map<string, number | undefined>, b: Map<string, number | undefined>) =>
  [...a].every(([value, page]) => b.get(value) === page);
