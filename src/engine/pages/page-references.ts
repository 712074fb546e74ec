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
import { findReferences, type References } from './find-references.js';
import { inPrintWorld } from './print-pdf.js';
import type { NotedSheets, SheetTexts } from './style-sheet-texts.js';
import { cssString, formatCounter } from './target-counter-css.js';

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

// pdfrender's style sheet that writes `pages` into the references' content; "??" where a target has none.
function numbersSheet(references: References, pages: Map<string, number | undefined>): string {
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

// Adopt `css` as pdfrender's sheet of page numbers (in place of the last one).
async function writeNumbers(slot: Slot, css: string): Promise<void> {
  await inPrintWorld(
    slot,
    `(() => {
      const sheet = (${held} ??= new CSSStyleSheet());
      sheet.replaceSync(${JSON.stringify(css)});
      if (!document.adoptedStyleSheets.includes(sheet)) document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
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
