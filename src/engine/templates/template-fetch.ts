/**
 * Fetching the images and style sheets header and footer templates refer to: http(s) under the
 * network policy documents are held to, file: URLs under the documents' file rule. Every byte is
 * taken from the request's budget before it is kept.
 */
import { pinnedRequest, RefusedUrlError } from '../../network/pinned-request.js';
import { urlRefusal } from '../../network/refusal.js';
import type { NetworkPolicy } from '../../network/policy.js';
import type { Resolver } from '../../network/resolve-checked.js';
import { fileJudge, type FileScope } from '../file-access.js';
import { fileType, readLocalFile } from '../local-file.js';

/** Bytes of a fetched resource and its media type. */
export interface FetchedResource {
  bytes: Uint8Array;
  contentType: string;
}

/** What a fetch may hold: take each chunk's size before keeping it; a refusal means stop. */
export interface FetchBudget {
  take(bytes: number): boolean;
}

/**
 * Fetches one URL for inlining; a file: URL only from the folders of `files` (the document's, its
 * templates' and the asset folders the engine allows). Throws RefusedUrlError for what the policy
 * refuses. A fetcher that does not take from `budget` is charged when it returns.
 */
export type ResourceFetcher = (
  url: URL,
  signal: AbortSignal,
  files?: FileScope,
  budget?: FetchBudget,
) => Promise<FetchedResource>;

/** Header and footer images and style sheets larger than this are left out. */
export const maxImageBytes = 10 * 1024 * 1024;

/**
 * Fetch http(s) URLs under the network policy (the same one documents are held to), and file: URLs
 * inside the folders of the scope the engine gives (links resolved; none on the server).
 */
export function defaultFetcher(options: { policy: NetworkPolicy; resolver?: Resolver | undefined }): ResourceFetcher {
  return async (url, signal, files, budget) => {
    if (url.protocol === 'file:') {
      const decision = await fileJudge(files)(url);
      if ('refused' in decision) throw new RefusedUrlError(urlRefusal('FILE_NOT_ALLOWED', decision.refused));
      signal.throwIfAborted();
      const bytes = await readLocalFile(decision.path, maxImageBytes, (size) => !budget || budget.take(size));
      return { bytes, contentType: fileType(url.pathname) ?? 'application/octet-stream' };
    }
    const response = await pinnedRequest(url, {
      policy: options.policy,
      resolver: options.resolver,
      signal,
      maxRedirects: 5,
      maxBytes: maxImageBytes,
      budget,
    });
    if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status}`);
    const contentType = response.headers['content-type']?.split(';')[0]?.trim() || fileType(url.pathname);
    return { bytes: response.body, contentType: contentType ?? 'application/octet-stream' };
  };
}
