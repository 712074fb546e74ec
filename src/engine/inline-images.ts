/**
 * Chromium never loads images referenced from header and footer templates (they are printed from
 * a document with no network access), so a logo in a header silently disappears. We fetch every
 * image a template references and inline it.
 *
 * Each distinct image is fetched once and written once per template, as a CSS custom property;
 * its references point at that (`url(x)` becomes `var(--…)`, an `<img>` gets it as its `content`),
 * so an image referenced sixty times costs one copy, not sixty. What one request may inline is
 * bounded: its bytes together (a ByteBudget taken before bytes are kept) and fetches at a time.
 */
import { PdfRenderError } from '../errors.js';
import { RefusedUrlError } from '../network/pinned-request.js';
import { ByteBudget } from './byte-budget.js';
import type { ResourceIssue } from './page-guard.js';
import type { ResourceFetcher } from './template-fetch.js';
import { templateReferences, type TemplateReference } from './template-references.js';

/** Bytes of header and footer images one request may inline, together. */
export const maxTemplateImageBytes = 10 * 1024 * 1024;
/** Header and footer images fetched at once for one request. */
const fetchConcurrency = 4;

export interface InlineResult {
  /** The templates, in the order given, with their images inlined. */
  templates: string[];
  /** References that could not be inlined, with the reason, so callers can report them. */
  failed: ResourceIssue[];
  /** References the network policy refused. */
  blocked: ResourceIssue[];
}

/**
 * Inline the images of `templates` (a request's header and footer), resolving relative references
 * against `baseUrl`. Throws RENDER_PDF_FAILED when they pass `maxBytes` together.
 */
export async function inlineTemplateImages(
  templates: string[],
  options: { baseUrl?: string | undefined; fetcher: ResourceFetcher; signal: AbortSignal; maxBytes?: number },
): Promise<InlineResult> {
  const failed: ResourceIssue[] = [];
  const blocked: ResourceIssue[] = [];
  // Each template's references, with the absolute URL each one stands for.
  const found = templates.map((html) =>
    templateReferences(html).flatMap((reference) => {
      const written = reference.url.trim();
      if (written === '' || /^data:/i.test(written)) return [];
      try {
        return [{ reference, href: new URL(written, options.baseUrl).href }];
      } catch {
        if (!failed.some((issue) => issue.url === written)) failed.push({ url: written, reason: 'relative URL with no base to resolve it against' });
        return [];
      }
    }),
  );
  const distinct = [...new Set(found.flat().map(({ href }) => href))];
  const budget = new ByteBudget(options.maxBytes ?? maxTemplateImageBytes);
  const inlined = await fetchAll(distinct, budget, options, (href, error) => {
    const issue = { url: href, reason: error instanceof Error ? error.message : String(error) };
    (error instanceof RefusedUrlError ? blocked : failed).push(issue);
  });
  const names = new Map(distinct.map((href, index) => [href, `--pdfrender-image-${index}`]));
  const rewritten = templates.map((html, index) => rewrite(html, found[index]!.filter(({ href }) => inlined.has(href)), inlined, names));
  return { templates: rewritten, failed, blocked };
}

// Fetch every URL, at most `fetchConcurrency` at a time; a URL that fails is reported and left out.
async function fetchAll(
  urls: string[],
  budget: ByteBudget,
  options: { baseUrl?: string | undefined; fetcher: ResourceFetcher; signal: AbortSignal },
  report: (href: string, error: unknown) => void,
): Promise<Map<string, string>> {
  const inlined = new Map<string, string>();
  const stop = new AbortController();
  const signal = AbortSignal.any([options.signal, stop.signal]);
  let next = 0;
  const worker = async () => {
    while (next < urls.length && !signal.aborted) {
      const href = urls[next++]!;
      let taken = 0;
      const share = {
        take(bytes: number) {
          if (!budget.take(bytes)) return false;
          taken += bytes;
          return true;
        },
      };
      try {
        const { bytes, contentType } = await options.fetcher(new URL(href), signal, options.baseUrl, share);
        // A fetcher that did not take as it read is charged now.
        if (bytes.byteLength > taken && !share.take(bytes.byteLength - taken)) throw new Error('over budget');
        inlined.set(href, `data:${safeMediaType(contentType)};base64,${Buffer.from(bytes).toString('base64')}`);
      } catch (error) {
        budget.give(taken);
        if (budget.exceeded) stop.abort(); // the request fails: the other fetches need not finish
        else if (!options.signal.aborted) report(href, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(fetchConcurrency, urls.length) }, worker));
  options.signal.throwIfAborted();
  if (budget.exceeded) {
    throw new PdfRenderError('RENDER_PDF_FAILED', `the header and footer images are larger than ${budget.limit / (1024 * 1024)} MB together, the limit for one request`);
  }
  return inlined;
}

// The template with each reference pointing at its image, defined once in a style sheet before it.
function rewrite(html: string, references: Array<{ reference: TemplateReference; href: string }>, inlined: Map<string, string>, names: Map<string, string>): string {
  if (references.length === 0) return html;
  const used = [...new Set(references.map(({ href }) => href))];
  const definitions = used.map((href) => `${names.get(href)}:url("${inlined.get(href)}");`).join('');
  // An <img> keeps its own box and attributes; its src becomes a marker that the rule gives the image to.
  const imageRules = used.map((href) => `img[src="${marker(names.get(href)!)}"]{content:var(${names.get(href)})}`).join('');
  const parts = [`<style>:root{${definitions}}${imageRules}</style>`];
  let position = 0;
  for (const { reference, href } of references) {
    parts.push(html.slice(position, reference.start), reference.kind === 'img' ? `"${marker(names.get(href)!)}"` : `var(${names.get(href)})`);
    position = reference.end;
  }
  parts.push(html.slice(position));
  return parts.join('');
}

// The src an inlined <img> gets: a data: URL that loads nothing, named after its image.
const marker = (name: string) => `data:,${name.slice(2)}`;

// A media type as a data: URI may carry it; anything else (a server's odd Content-Type) is dropped.
function safeMediaType(type: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(type) ? type : 'application/octet-stream';
}
