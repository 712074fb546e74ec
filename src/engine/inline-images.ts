/**
 * Chromium never loads images referenced from header and footer templates (they are printed from
 * a document with no network access), so a logo in a header silently disappears. We fetch every
 * image a template references and inline it.
 *
 * Each distinct image is fetched once and written once per template: `<img>` references get it
 * through one style rule (as their `content`), CSS `url()` references through one custom property
 * (`var(--…)`), so an image referenced sixty times costs one copy, not sixty. Chromium drops a
 * custom property over 2 MiB, so an image too big for one is written at each CSS reference
 * instead, and counted once per reference. What one request may inline is bounded: the bytes it
 * fetches together (a ByteBudget taken before bytes are kept), the bytes its templates carry,
 * and the fetches at a time.
 */
import { PdfRenderError } from '../errors.js';
import { RefusedUrlError } from '../network/pinned-request.js';
import { ByteBudget } from './byte-budget.js';
import { LocalFileError } from './local-file.js';
import type { ResourceIssue } from './page-guard.js';
import type { ResourceFetcher } from './template-fetch.js';
import { templateReferences, type TemplateReference } from './template-references.js';

/** Bytes of header and footer images one request may inline, together. */
export const maxTemplateImageBytes = 10 * 1024 * 1024;
// Chromium ignores a custom property whose value is longer than 2 MiB (measured: 2.27 MB failed).
const maxVariableChars = 2_000_000;
/** Header and footer images fetched at once for one request. */
const fetchConcurrency = 4;

export interface InlineResult {
  /** The templates, in the order given, with their images inlined. */
  templates: string[];
  /** References that could not be inlined, with the reason, so callers can report them. */
  failed: ResourceIssue[];
  /** References the network policy refused. */
  blocked: ResourceIssue[];
  /** Which templates (their indices) refer to a URL of `failed` or `blocked`. */
  referrers: Map<string, number[]>;
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
  const referrers = new Map<string, number[]>();
  const referredBy = (url: string, index: number) => referrers.set(url, [...new Set([...(referrers.get(url) ?? []), index])]);
  // Each template's references, with the absolute URL each one stands for.
  const found = templates.map((html, index) =>
    templateReferences(html).flatMap((reference) => {
      const written = reference.url.trim();
      if (written === '' || /^data:/i.test(written)) return [];
      try {
        const href = new URL(written, options.baseUrl).href;
        referredBy(href, index);
        return [{ reference, href }];
      } catch {
        referredBy(written, index);
        if (!failed.some((issue) => issue.url === written)) failed.push({ url: written, code: 'LOAD_FAILED', reason: 'relative URL with no base to resolve it against' });
        return [];
      }
    }),
  );
  const distinct = [...new Set(found.flat().map(({ href }) => href))];
  const budget = new ByteBudget(options.maxBytes ?? maxTemplateImageBytes);
  const inlined = await fetchAll(distinct, budget, options, (href, error) => {
    if (error instanceof RefusedUrlError) blocked.push({ url: href, ...error.refusal });
    else failed.push({ url: href, ...fetchFailure(error) });
  });
  const names = new Map(distinct.map((href, index) => [href, `--pdfrender-image-${index}`]));
  const usable = found.map((references) => references.filter(({ href }) => inlined.has(href)));
  const carried = usable.reduce((sum, references) => sum + carriedBytes(references, inlined), 0);
  if (carried > budget.limit) {
    throw new PdfRenderError('RENDER_PDF_FAILED', `the header and footer would carry ${megabytes(carried)} MB of images, more than the ${megabytes(budget.limit)} MB limit for one request (an image over ${megabytes((maxVariableChars * 3) / 4)} MB counts once for each CSS url() that refers to it)`);
  }
  const rewritten = templates.map((html, index) => rewrite(html, usable[index]!, inlined, names));
  return { templates: rewritten, failed, blocked, referrers };
}

// An image as a data: URI, and its size in bytes.
interface Inlined {
  data: string;
  bytes: number;
}

// Fetch every URL, at most `fetchConcurrency` at a time; a URL that fails is reported and left out.
async function fetchAll(
  urls: string[],
  budget: ByteBudget,
  options: { baseUrl?: string | undefined; fetcher: ResourceFetcher; signal: AbortSignal },
  report: (href: string, error: unknown) => void,
): Promise<Map<string, Inlined>> {
  const inlined = new Map<string, Inlined>();
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
        inlined.set(href, { data: `data:${safeMediaType(contentType)};base64,${Buffer.from(bytes).toString('base64')}`, bytes: bytes.byteLength });
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
    throw new PdfRenderError('RENDER_PDF_FAILED', `the header and footer images are larger than ${megabytes(budget.limit)} MB together, the limit for one request`);
  }
  return inlined;
}

type Usable = Array<{ reference: TemplateReference; href: string }>;

// Raw bytes of the images one template will carry: one copy of each, and one more for each CSS
// reference to an image too big for a custom property.
function carriedBytes(references: Usable, inlined: Map<string, Inlined>): number {
  const once = new Set(references.filter(({ reference, href }) => reference.kind === 'img' || !tooBig(inlined.get(href)!)).map(({ href }) => href));
  const each = references.filter(({ reference, href }) => reference.kind === 'css' && tooBig(inlined.get(href)!));
  return [...once].reduce((sum, href) => sum + inlined.get(href)!.bytes, 0) + each.reduce((sum, { href }) => sum + inlined.get(href)!.bytes, 0);
}

const tooBig = (image: Inlined) => image.data.length > maxVariableChars;

// The template with each reference pointing at its image, defined once in a style sheet before it.
function rewrite(html: string, references: Usable, inlined: Map<string, Inlined>, names: Map<string, string>): string {
  if (references.length === 0) return html;
  const name = (href: string) => names.get(href)!;
  const data = (href: string) => inlined.get(href)!.data;
  const images = new Set(references.filter(({ reference }) => reference.kind === 'img').map(({ href }) => href));
  const variables = new Set(references.filter(({ reference, href }) => reference.kind === 'css' && !tooBig(inlined.get(href)!)).map(({ href }) => href));
  // An <img> keeps its own box and attributes; its src becomes a marker that a rule gives the image to.
  const imageRules = [...images].map((href) => `img[src="${marker(name(href))}"]{content:url("${data(href)}")}`).join('');
  const definitions = [...variables].map((href) => `${name(href)}:url("${data(href)}");`).join('');
  const parts = [`<style>:root{${definitions}}${imageRules}</style>`];
  let position = 0;
  for (const { reference, href } of references) {
    const replacement = reference.kind === 'img' ? `"${marker(name(href))}"` : variables.has(href) ? `var(${name(href)})` : `url("${data(href)}")`;
    parts.push(html.slice(position, reference.start), replacement);
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

const megabytes = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

// A fetch failure as a caller may see it: an HTTP status, an errno name (ECONNREFUSED), a size or
// time limit; the message itself (a resolved address, a local path) is the operator's detail.
function fetchFailure(error: unknown): Omit<ResourceIssue, 'url'> {
  const detail = error instanceof Error ? error.message : String(error);
  const match = /^HTTP (\d{3})$/.exec(detail);
  if (match) return { code: 'HTTP_ERROR', reason: detail };
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = error instanceof LocalFileError ? detail : (error as Error | undefined)?.name === 'AbortError' ? 'timed out or cancelled' : /^the response is larger than \d+ bytes$/.test(detail) ? detail : typeof errno === 'string' && /^E[A-Z_]+$/.test(errno) ? errno : 'failed to load';
  return reason === detail ? { code: 'LOAD_FAILED', reason } : { code: 'LOAD_FAILED', reason, detail };
}
