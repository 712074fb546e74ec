/**
 * Chromium never loads images referenced from header and footer templates (they are printed from
 * a document with no network access), so a logo in a header silently disappears. We fetch every
 * image a template references and inline it as a data: URI before printing.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bytes of a fetched resource and its media type. */
export interface FetchedResource {
  bytes: Uint8Array;
  contentType: string;
}

/** Fetches one URL for inlining; the engine's caller decides what may be fetched. */
export type ResourceFetcher = (url: URL, signal: AbortSignal) => Promise<FetchedResource>;

// Image types by file extension, for local files (http responses carry their own Content-Type).
const imageTypes: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.bmp': 'image/bmp',
  '.ico': 'image/x-icon',
};

/** Fetch http(s) URLs, and file: URLs only when `allowFiles` (the CLI renders the user's own files). */
export function defaultFetcher(options: { allowFiles: boolean }): ResourceFetcher {
  return async (url, signal) => {
    if (url.protocol === 'file:' && options.allowFiles) {
      const path = fileURLToPath(url);
      return { bytes: await readFile(path, { signal }), contentType: imageTypes[extname(path).toLowerCase()] ?? 'application/octet-stream' };
    }
    if (url.protocol === 'http:' || url.protocol === 'https:') {
      const response = await fetch(url, { signal, redirect: 'follow' });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const contentType = response.headers.get('content-type')?.split(';')[0]?.trim() || imageTypes[extname(url.pathname).toLowerCase()];
      return { bytes: new Uint8Array(await response.arrayBuffer()), contentType: contentType ?? 'application/octet-stream' };
    }
    throw new Error(`${url.protocol} URLs are not fetched`);
  };
}

// <img ... src="x">, with double, single or no quotes; and CSS url(x) in style attributes or sheets.
const imgSrcPattern = /(<img\b[^>]*?\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
const cssUrlPattern = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]+))\s*\)/gi;

export interface InlineResult {
  html: string;
  /** References that could not be inlined, with the reason, so callers can report them. */
  failed: Array<{ url: string; reason: string }>;
}

/** Replace image references in a template with data: URIs, resolving relative ones against `baseUrl`. */
export async function inlineTemplateImages(
  html: string,
  options: { baseUrl?: string | undefined; fetcher: ResourceFetcher; signal: AbortSignal },
): Promise<InlineResult> {
  const references = new Set<string>();
  for (const m of html.matchAll(imgSrcPattern)) references.add(m[2] ?? m[3] ?? m[4] ?? '');
  for (const m of html.matchAll(cssUrlPattern)) references.add(m[1] ?? m[2] ?? m[3] ?? '');

  const inlined = new Map<string, string>();
  const failed: InlineResult['failed'] = [];
  await Promise.all(
    [...references].map(async (reference) => {
      if (reference === '' || /^data:/i.test(reference)) return;
      let url: URL;
      try {
        url = new URL(reference.trim(), options.baseUrl);
      } catch {
        failed.push({ url: reference, reason: 'relative URL with no base to resolve it against' });
        return;
      }
      try {
        const { bytes, contentType } = await options.fetcher(url, options.signal);
        inlined.set(reference, `data:${contentType};base64,${Buffer.from(bytes).toString('base64')}`);
      } catch (error) {
        failed.push({ url: url.href, reason: error instanceof Error ? error.message : String(error) });
      }
    }),
  );
  if (inlined.size === 0) return { html, failed };

  const replaced = html
    .replace(imgSrcPattern, (whole, prefix: string, dq?: string, sq?: string, bare?: string) => {
      const data = inlined.get(dq ?? sq ?? bare ?? '');
      return data ? `${prefix}"${data}"` : whole;
    })
    .replace(cssUrlPattern, (whole, dq?: string, sq?: string, bare?: string) => {
      const data = inlined.get(dq ?? sq ?? bare ?? '');
      return data ? `url("${data}")` : whole;
    });
  return { html: replaced, failed };
}
