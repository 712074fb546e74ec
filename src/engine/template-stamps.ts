/**
 * Which renders have their header and footer laid over the pages (document/template-stamp.ts)
 * instead of printed by Chromium on every page, and the stamps kept for them. Measured on the
 * invoice (2 pages, a header with a logo, a page-number footer), per document, CPU of pdfrender and
 * its Chromium together: 46.5 ms printed and finished as before, 34.0 ms printed without templates
 * with the stamp laid over (medians of 14 alternating rounds of 10); the PDF is the same to a reader
 * (text in the same places, the same fonts, the same pixels, the templates marked as artifacts).
 *
 * A stamp pays only where templates repeat, so a template is stamped from its second render on: the
 * first prints as Chromium prints it, and a one-off document (a header with its invoice's number)
 * never pays for a stamp it will not use again. Only templates whose print depends on nothing but
 * themselves and the paper are stamped: none that prints the date, the title or the URL, links or
 * web fonts of their own, nor a request for page 1's own templates, page ranges, one long page, the
 * document's own page size, or an archival PDF. Templates that name a font family the document
 * declares (drawn in its face, template-fonts.ts) are found when first stamped, and printed by
 * Chromium from then on.
 */
import { nodeCrypto } from '../lazy-module.js';
import { scanHtml } from '../markup/html-tags.js';
import { withoutDefaults } from './templates/header-footer.js';
import type { RenderRequest } from '../request.js';
import { layStamp, prepareStamp, type PreparedStamp } from './document/template-stamp.js';
import type { Templates } from './pages/print-document.js';
import type { TemplateFonts } from './template-fonts.js';

/** Templates keys and stamps kept: a few repeated headers, a few page counts each. */
const maxKeys = 256;
const maxStampBytes = 16 * 1024 * 1024;
/** Stamps of longer documents are made for the one render and not kept. */
const maxKeptPages = 256;

// Words of the classes Chromium fills in per print (date) or from the document (title, url), and
// "&#", which could spell them; CSS's url( is no class (a class token "url" cannot be followed by
// "("). A stamp is printed from a blank document, so a template using one must be Chromium's to
// print. The template is searched as text, not as markup: a parser of ours and Chromium's can
// disagree (a <span class="url"> inside an <svg><style> is an element to Chromium), and a word found
// anywhere costs only the stamp. Inlined images (data: URLs) and pdfrender's own default style sheet
// are left out of the search. Script never runs in a template (checked: an inline script and an
// onerror handler in a header print nothing), so classes cannot be made at print time.
const perDocument = /date|title|url(?!\()|&#/;
const dataUrls = /data:[^"'\s)>]*/g;

// Whether a template may print something of its document or its print, or has a link (which a
// stamp would not carry); linear in its length, whatever it holds.
function printsPerDocument(html: string): boolean {
  const text = withoutDefaults(html).toLowerCase().replace(dataUrls, '');
  return perDocument.test(text) || scanHtml(html).tags.some((tag) => tag.name === 'a');
}

/**
 * The key of templates a stamp can stand in for, or undefined when this render's must be Chromium's.
 * The caller is part of it: a stamp serves only the caller whose templates made it, so no caller can
 * tell from a faster render that another printed the same header lately.
 */
export function stampKey(
  request: RenderRequest,
  templates: Templates & { fonts: TemplateFonts },
  caller = '',
): string | undefined {
  // Fonts a template carries are drawn only once the page has loaded them, which a blank one has not.
  if (!templates.display || templates.firstPage || templates.usesUrl || templates.fonts.preload.length > 0)
    return undefined;
  if (request.pageRanges || request.singlePage || request.preferCssPageSize) return undefined;
  if (request.pdfa || request.attachments?.length || request.facturX !== null) return undefined;
  if (printsPerDocument(templates.header) || printsPerDocument(templates.footer)) return undefined;
  const { paperWidth, paperHeight, landscape, marginTop, marginRight, marginBottom, marginLeft } = request;
  const paper = [paperWidth, paperHeight, landscape, marginTop, marginRight, marginBottom, marginLeft];
  const print = [caller, ...paper, request.scale, request.printBackground, templates.header, templates.footer];
  return nodeCrypto().createHash('sha256').update(JSON.stringify(print)).digest('base64url');
}

/** The engine's stamps: which templates were seen, and the stamps made of them by page count. */
export interface TemplateStamps {
  /** Whether the render with `key` should print without its templates: they were printed before. Records this sighting. */
  repeats(key: string): boolean;
  get(key: string, pages: number): PreparedStamp | undefined;
  keep(key: string, pages: number, stamp: PreparedStamp): void;
  /** The templates `key` could not be stamped: they are printed by Chromium from now on. */
  refuse(key: string): void;
}

/** An empty set of stamps, bounded in keys and bytes (the oldest go first). */
export function createTemplateStamps(): TemplateStamps {
  // Per key: undefined once seen, the stamps by page count once made, null when refused. A Map keeps
  // insertion order, and each use moves its key to the end, so the first key is the least recently used.
  const keys = new Map<string, Map<number, PreparedStamp> | null | undefined>();
  let bytes = 0;
  const touch = (key: string) => {
    const value = keys.get(key);
    keys.delete(key);
    keys.set(key, value);
    return value;
  };
  const evict = () => {
    while (keys.size > maxKeys || bytes > maxStampBytes) {
      const [oldest, stamps] = keys.entries().next().value!;
      for (const stamp of stamps?.values() ?? []) bytes -= stamp.bytes;
      keys.delete(oldest);
    }
  };
  return {
    repeats(key) {
      if (keys.has(key)) return touch(key) !== null;
      keys.set(key, undefined);
      evict();
      return false;
    },
    get: (key, pages) => keys.get(key)?.get(pages),
    keep(key, pages, stamp) {
      const stamps = keys.get(key);
      if (stamps === null || pages > maxKeptPages || stamp.bytes > maxStampBytes / 4) return;
      const kept = stamps ?? new Map<number, PreparedStamp>();
      if (kept.has(pages)) return;
      kept.set(pages, stamp);
      keys.set(key, kept);
      bytes += stamp.bytes;
      evict();
    },
    refuse(key) {
      for (const stamp of keys.get(key)?.values() ?? []) bytes -= stamp.bytes;
      keys.set(key, null);
    },
  };
}

/** What rendering with stamps needs of the engine. */
export interface StampSteps<Result> {
  stamps: TemplateStamps;
  /** Render the request on a page with these templates. */
  render: (templates: Templates & { fonts: TemplateFonts }) => Promise<Result>;
  /** Print a stamp of the request's templates for a document of `pages` pages (pages/print-stamp.ts). */
  printStamp: (pages: number) => Promise<Uint8Array>;
  /** Who the render is for (RenderOptions.caller): stamps are kept per caller. */
  caller?: string;
}

/**
 * Render with the request's templates, or, where they were printed before, without them and with
 * their stamp laid over the pages (made now for this page count if none is kept). Where the stamp
 * does not fit the PDF (pages of another size), the templates are Chromium's from then on; where it
 * could not be printed, for this render. Either way the document is rendered again with them.
 */
export async function renderWithStamps<
  Result extends { pdf: Uint8Array; pages: number; bytes: number; facesFromDocument: boolean },
>(
  request: RenderRequest,
  templates: Templates & { fonts: TemplateFonts },
  signal: AbortSignal,
  { stamps, render, printStamp, caller }: StampSteps<Result>,
): Promise<{ result: Result; stamped: boolean }> {
  const key = stampKey(request, templates, caller);
  if (key === undefined || !stamps.repeats(key)) return { result: await render(templates), stamped: false };
  const body = await render({ ...templates, display: false });
  // Fonts of the document's own in the templates (a family they name that it declares): a stamp
  // printed from a blank document would draw them in another font. So would every later document
  // made the same way, so these templates are Chromium's from now on.
  if (body.facesFromDocument) {
    stamps.refuse(key);
    return { result: await render(templates), stamped: false };
  }
  const laid = await layTemplates(stamps, { key, pdf: body.pdf, pages: body.pages, tagged: request.tagged }, () =>
    printStamp(body.pages),
  ).catch(() => {
    // A stamp that could not be printed or laid (its page crashed, its deadline ran out) costs this
    // render a print with Chromium's templates, not its PDF; so that no later render pays twice for
    // it again, these templates are Chromium's from now on.
    signal.throwIfAborted();
    return undefined;
  });
  if (laid) return { result: { ...body, pdf: laid, bytes: laid.byteLength }, stamped: true };
  stamps.refuse(key);
  return { result: await render(templates), stamped: false };
}

// `pdf` (printed without its templates) with the templates `key` stands for laid over its pages: the
// stamp kept for its page count, else one made now with `print` and kept; undefined when it does not fit.
async function layTemplates(
  stamps: TemplateStamps,
  { key, pdf, pages, tagged }: { key: string; pdf: Uint8Array; pages: number; tagged: boolean },
  print: () => Promise<Uint8Array>,
): Promise<Uint8Array | undefined> {
  let stamp = stamps.get(key, pages);
  if (!stamp) {
    stamp = prepareStamp(await print());
    if (!stamp) return undefined;
    stamps.keep(key, pages, stamp);
  }
  return layStamp(pdf, stamp, tagged);
}
