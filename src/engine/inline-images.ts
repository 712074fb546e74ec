/**
 * Chromium never loads images referenced from header and footer templates (they are printed from
 * a document with no network access), so a logo in a header silently disappears. We fetch every
 * image a template references and inline it as a data: URI before printing.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedRequest, RefusedUrlError } from '../network/pinned-request.js';
import type { NetworkPolicy } from '../network/policy.js';
import { urlRefusal } from '../network/refusal.js';
import type { Resolver } from '../network/resolve-checked.js';
import { fileRefusal, type FileAccess } from './file-access.js';
import type { ResourceIssue } from './page-guard.js';

/** Bytes of a fetched resource and its media type. */
export interface FetchedResource {
  bytes: Uint8Array;
  contentType: string;
}

/** Fetches one URL for inlining, for a document at `baseUrl`; throws RefusedUrlError for what the policy refuses. */
export type ResourceFetcher = (url: URL, signal: AbortSignal, baseUrl?: string) => Promise<FetchedResource>;

/** Header and footer images larger than this are left out. */
const maxImageBytes = 10 * 1024 * 1024;

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

/**
 * Fetch http(s) URLs under the network policy (the same one documents are held to), and file: URLs
 * as `files` says: 'any' (the CLI's header files are the user's own), 'document-folder' (inside
 * the document's folder), or 'none' (the server).
 */
export function defaultFetcher(options: { files: FileAccess; policy: NetworkPolicy; resolver?: Resolver | undefined }): ResourceFetcher {
  return async (url, signal, baseUrl) => {
    if (url.protocol === 'file:') {
      const refusal = fileRefusal(url, baseUrl, options.files);
      if (refusal) throw new RefusedUrlError(urlRefusal('FILE_NOT_ALLOWED', refusal));
      const path = fileURLToPath(url);
      return { bytes: await readFile(path, { signal }), contentType: imageTypes[extname(path).toLowerCase()] ?? 'application/octet-stream' };
    }
    const response = await pinnedRequest(url, { policy: options.policy, resolver: options.resolver, signal, maxRedirects: 5, maxBytes: maxImageBytes });
    if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status}`);
    const contentType = response.headers['content-type']?.split(';')[0]?.trim() || imageTypes[extname(url.pathname).toLowerCase()];
    return { bytes: response.body, contentType: contentType ?? 'application/octet-stream' };
  };
}

// <img ... src="x">, with double, single or no quotes; and CSS url(x) in style attributes or sheets.
const imgSrcPattern = /(<img\b[^>]*?\bsrc\s*=\s*)(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/gi;
const cssUrlPattern = /url\(\s*(?:"([^"]*)"|'([^']*)'|([^)"'\s]+))\s*\)/gi;

export interface InlineResult {
  html: string;
  /** References that could not be inlined, with the reason, so callers can report them. */
  failed: ResourceIssue[];
  /** References the network policy refused. */
  blocked: ResourceIssue[];
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
  const blocked: InlineResult['blocked'] = [];
  await Promise.all(
    [...references].map(async (reference) => {
      if (reference === '' || /^data:/i.test(reference)) return;
      let url: URL;
      try {
        url = new URL(reference.trim(), options.baseUrl);
      } catch {
        failed.push({ url: reference, code: 'LOAD_FAILED', reason: 'relative URL with no base to resolve it against' });
        return;
      }
      try {
        const { bytes, contentType } = await options.fetcher(url, options.signal, options.baseUrl);
        inlined.set(reference, `data:${contentType};base64,${Buffer.from(bytes).toString('base64')}`);
      } catch (error) {
        if (error instanceof RefusedUrlError) blocked.push({ url: url.href, ...error.refusal });
        else failed.push({ url: url.href, ...fetchFailure(error) });
      }
    }),
  );
  if (inlined.size === 0) return { html, failed, blocked };

  const replaced = html
    .replace(imgSrcPattern, (whole, prefix: string, dq?: string, sq?: string, bare?: string) => {
      const data = inlined.get(dq ?? sq ?? bare ?? '');
      return data ? `${prefix}"${data}"` : whole;
    })
    .replace(cssUrlPattern, (whole, dq?: string, sq?: string, bare?: string) => {
      const data = inlined.get(dq ?? sq ?? bare ?? '');
      return data ? `url("${data}")` : whole;
    });
  return { html: replaced, failed, blocked };
}

// A fetch failure as a caller may see it: an HTTP status, an errno name (ECONNREFUSED), a size or
// time limit; the message itself (a resolved address, a local path) is the operator's detail.
function fetchFailure(error: unknown): Omit<ResourceIssue, 'url'> {
  const detail = error instanceof Error ? error.message : String(error);
  const match = /^HTTP (\d{3})$/.exec(detail);
  if (match) return { code: 'HTTP_ERROR', reason: detail };
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason = (error as Error | undefined)?.name === 'AbortError' ? 'timed out or cancelled' : /^the response is larger than \d+ bytes$/.test(detail) ? detail : typeof errno === 'string' && /^E[A-Z_]+$/.test(errno) ? errno : 'failed to load';
  return reason === detail ? { code: 'LOAD_FAILED', reason } : { code: 'LOAD_FAILED', reason, detail };
}
