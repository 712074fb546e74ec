/**
 * Chromium prints header and footer templates without loading anything: an image they refer to
 * silently disappears, and a style sheet or web font it would wait for fails the whole print
 * ("Printing failed"). pdfrender fetches the images and style sheets a template refers to (under
 * the network policy and file rule documents are held to) and inlines them as data: URLs, and
 * empties every other reference (web fonts, scripts, frames, media, srcset, SVG references to
 * other files), reporting each one it could not honour, as a document's own loads are reported.
 *
 * What one request may inline is bounded: the bytes it fetches together (a ByteBudget taken
 * before bytes are kept), the images and style sheets its templates carry, how many its style
 * sheets bring in and how deep their imports go, and the fetches at a time.
 */
import { scanHtml } from '../../markup/html-tags.js';
import { templateReferences, usesUrlClass } from '../../markup/template-references.js';
import { ByteBudget } from './byte-budget.js';
import type { FetchManyOptions } from './fetch-many.js';
import type { NetworkReport } from '../network-report.js';
import { crawl, resolveReferences } from './template-crawl.js';
import { dataFonts, namedFamilies } from './template-families.js';
import { TemplateReport, type Origin } from './template-report.js';
import { rewriteTemplates } from './template-rewrite.js';

/** Bytes of header and footer images and style sheets one request may fetch, and of images it may carry, together. */
export const maxTemplateImageBytes = 10 * 1024 * 1024;

/** One URL a template could not have, what it was, and which templates (indices) it is missing from. */
export interface LeftOut {
  url: string;
  what: string;
  reason: string;
  templates: number[];
}

export interface InlineResult {
  /** The templates, in the order given, with what they refer to inlined or emptied. */
  templates: string[];
  /** URLs the network policy or the file rule refused, and URLs that failed or cannot load in a template. */
  network: NetworkReport;
  /** The failed ones, with what each was and where it is missing, for warnings. */
  leftOut: LeftOut[];
  /** A template prints the document's URL (an element with class "url"). */
  usesUrl: boolean;
  /**
   * The web fonts the templates carry, as the data: URLs written in them: Chromium draws a
   * template's text with one only once the page has loaded the same URL, so the engine loads them
   * into the page before it prints.
   */
  fonts: string[];
  /** For each template, the font family names (lower case) it could ask for, its style sheets' included. */
  families: string[][];
}

/**
 * Inline what `templates` (a request's header and footer) refer to, resolving relative references
 * against each one's entry in `baseUrls` (a template read from a file: its own URL), else `baseUrl`;
 * nothing is left for Chromium to load. Throws RENDER_PDF_FAILED past a bound.
 */
export async function inlineTemplateResources(
  templates: string[],
  options: FetchManyOptions & { maxBytes?: number; baseUrls?: ReadonlyArray<string | undefined> },
): Promise<InlineResult> {
  const report = new TemplateReport();
  // Each template is scanned once, for its references and for its url class alike.
  const scans = templates.map(scanHtml);
  const found = templates.map((html, index) =>
    resolveReferences(
      templateReferences(html, scans[index]),
      options.baseUrls?.[index] ?? options.baseUrl,
      report,
      index,
    ),
  );
  const budget = new ByteBudget(options.maxBytes ?? maxTemplateImageBytes);
  const crawled = await crawl(found, budget, options, report);
  const rewritten = rewriteTemplates(templates, found, crawled, report, budget.limit);
  // Which templates each style sheet is part of, to say where what it lost is missing.
  const sheetTemplates = new Map<string, Set<number>>();
  const visit = (href: string, template: number) => {
    const seen = sheetTemplates.get(href) ?? sheetTemplates.set(href, new Set()).get(href)!;
    if (seen.has(template)) return;
    seen.add(template);
    for (const { reference, href: target } of crawled.sheets.get(href)?.references ?? [])
      if (reference.kind === 'stylesheet' && target) visit(target, template);
  };
  found.forEach((references, template) =>
    references.forEach(({ reference, href }) => reference.kind === 'stylesheet' && href && visit(href, template)),
  );
  const templatesOf = (origin: Origin) =>
    typeof origin === 'number' ? [origin] : [...(sheetTemplates.get(origin) ?? [])];
  const leftOut = report.failures().map(({ issue, what, origins }) => ({
    url: issue.url,
    what,
    reason: issue.reason,
    templates: [...new Set([...origins].flatMap(templatesOf))].sort(),
  }));
  const fonts = new Set(rewritten.fonts);
  const families = templates.map((html, template) => {
    const sheets = [...sheetTemplates].filter(([, of]) => of.has(template)).map(([href]) => crawled.sheets.get(href));
    const texts = [
      ...scans[template]!.styleSheets.map(({ start, end }) => html.slice(start, end)),
      ...sheets.flatMap((sheet) => (sheet ? [sheet.text] : [])),
    ];
    for (const text of texts) for (const font of dataFonts(text)) fonts.add(font);
    return [...namedFamilies([html, ...texts].join('\n'))];
  });
  return {
    templates: rewritten.templates,
    fonts: [...fonts],
    families,
    network: report.network(),
    leftOut,
    usesUrl: templates.some((html, index) => usesUrlClass(html, scans[index])),
  };
}
