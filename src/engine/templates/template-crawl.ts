/**
 * Fetching what a request's header and footer refer to: their images, web fonts and style sheets,
 * then what those style sheets import and show, level by level, bounded in depth, in number and
 * (through the shared budget) in bytes. Everything else a template cannot load is not fetched at
 * all: it is reported and left out.
 */
import { stylesheetReferences, type TemplateReference } from '../../markup/template-references.js';
import type { ByteBudget } from './byte-budget.js';
import { fetchMany, type FetchManyOptions } from './fetch-many.js';
import type { ResourceIssue } from '../network-report.js';
import type { FetchedResource } from './template-fetch.js';
import type { Origin, TemplateReport } from './template-report.js';

/** How many @imports deep pdfrender follows below a template's own style sheet. */
export const maxImportDepth = 3;
/** Images and style sheets that a request's style sheets may bring in besides those the templates name. */
export const maxStylesheetFetches = 20;

/** A reference and the absolute URL it stands for; null when it is left out (reported already). */
export interface Resolved {
  reference: TemplateReference;
  href: string | null;
}

/** A fetched style sheet: its text and its own references, resolved against its URL. */
export interface Sheet {
  text: string;
  references: Resolved[];
}

/** What was fetched: images (web fonts among them) and style sheets by URL. */
export interface Crawled {
  images: Map<string, FetchedResource>;
  sheets: Map<string, Sheet>;
}

/**
 * Resolve `references` (found at `origin`) against `base`. What a template cannot load at all is
 * reported here and left out, as is a relative URL with no base.
 */
export function resolveReferences(
  references: TemplateReference[],
  base: string | undefined,
  report: TemplateReport,
  origin: Origin,
): Resolved[] {
  return references.map((reference) => {
    const { kind, what } = reference;
    const written = reference.url.trim();
    if (kind === 'other') {
      const reason = `header and footer templates cannot load ${what}`;
      for (const url of reference.candidates ?? [written])
        report.add('failed', { url: absolute(url, base) ?? url, code: 'TEMPLATE_UNSUPPORTED', reason }, what, origin);
      return { reference, href: null };
    }
    const href = absolute(written, base);
    if (href === null)
      report.add(
        'failed',
        { url: written, code: 'LOAD_FAILED', reason: 'relative URL with no base to resolve it against' },
        what,
        origin,
      );
    return { reference, href };
  });
}

function absolute(url: string, base: string | undefined): string | null {
  try {
    return new URL(url, base).href;
  } catch {
    return null;
  }
}

/** Fetch the images, fonts and style sheets of `found` (each template's resolved references), and what the style sheets bring in. */
export async function crawl(
  found: Resolved[][],
  budget: ByteBudget,
  options: FetchManyOptions,
  report: TemplateReport,
): Promise<Crawled> {
  const crawled: Crawled = { images: new Map(), sheets: new Map() };
  const queued = { images: new Set<string>(), sheets: new Set<string>() };
  // Where each URL is referred to from, so a failure names every template it leaves something out of.
  const referrers = new Map<string, { what: string; origins: Set<Origin> }>();
  const refer = (resolved: Resolved, origin: Origin) => {
    if (resolved.href === null) return;
    const known = referrers.get(resolved.href);
    if (known) known.origins.add(origin);
    else referrers.set(resolved.href, { what: resolved.reference.what, origins: new Set([origin]) });
  };
  let wave = { images: [] as string[], sheets: [] as string[] };
  const queue = (resolved: Resolved, into: typeof wave) => {
    const list = resolved.reference.kind === 'stylesheet' ? 'sheets' : 'images';
    if (resolved.href === null || queued[list].has(resolved.href)) return false;
    queued[list].add(resolved.href);
    into[list].push(resolved.href);
    return true;
  };
  found.forEach((references, index) =>
    references.forEach((resolved) => (refer(resolved, index), queue(resolved, wave))),
  );
  let broughtIn = 0;
  for (let depth = 0; wave.images.length + wave.sheets.length > 0; depth += 1) {
    const fail = (list: 'blocked' | 'failed', issue: ResourceIssue) => {
      const { what, origins } = referrers.get(issue.url)!;
      for (const origin of origins) report.add(list, issue, what, origin);
    };
    const fetched = await fetchMany([...new Set([...wave.images, ...wave.sheets])], budget, options, fail);
    for (const href of wave.images) if (fetched.has(href)) crawled.images.set(href, fetched.get(href)!);
    const next = { images: [] as string[], sheets: [] as string[] };
    for (const href of wave.sheets) {
      const resource = fetched.get(href);
      if (!resource) continue;
      if (resource.contentType.split(';')[0]!.trim().toLowerCase() !== 'text/css') {
        fail('failed', { url: href, code: 'LOAD_FAILED', reason: 'not a style sheet (its type is not text/css)' });
        continue;
      }
      // Decoded as UTF-8 (a BOM is dropped): the inlined copy says it is UTF-8, whatever @charset says.
      const text = new TextDecoder().decode(resource.bytes);
      const references = resolveReferences(stylesheetReferences(text), href, report, href);
      crawled.sheets.set(href, { text, references });
      for (const resolved of references) {
        refer(resolved, href);
        if (
          resolved.href === null ||
          queued[resolved.reference.kind === 'stylesheet' ? 'sheets' : 'images'].has(resolved.href)
        )
          continue;
        const refused =
          resolved.reference.kind === 'stylesheet' && depth >= maxImportDepth
            ? `imported more than ${maxImportDepth} levels deep`
            : broughtIn >= maxStylesheetFetches
              ? `more than ${maxStylesheetFetches} images and style sheets come from the header and footer style sheets`
              : null;
        if (refused) {
          report.add(
            'failed',
            { url: resolved.href, code: 'LOAD_FAILED', reason: refused },
            resolved.reference.what,
            href,
          );
          resolved.href = null;
        } else if (queue(resolved, next)) broughtIn += 1;
      }
    }
    wave = next;
  }
  // A URL that failed before a later style sheet referred to it again leaves something out there too.
  for (const [href, { origins }] of referrers) report.alsoFrom(href, origins);
  return crawled;
}
