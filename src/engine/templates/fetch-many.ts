/**
 * Fetching what header and footer templates refer to, a few at a time, every byte taken from the
 * request's budget before it is kept. A URL that fails is reported (blocked or failed) and left
 * out; passing the budget fails the request, since what was asked for together is too big.
 */
import { PdfRenderError } from '../../errors.js';
import { connectionFailureOf } from '../../network/connection-failure.js';
import { RefusedUrlError } from '../../network/pinned-request.js';
import type { ByteBudget } from './byte-budget.js';
import type { FileScope } from '../file-access.js';
import { LocalFileError } from '../local-file.js';
import type { ResourceIssue } from '../network-report.js';
import type { FetchedResource, ResourceFetcher } from './template-fetch.js';

/** Header and footer resources fetched at once for one request. */
const fetchConcurrency = 4;

export interface FetchManyOptions {
  /** What relative URLs resolve against. */
  baseUrl?: string | undefined;
  /** The local folders file: URLs may be read from. */
  files?: FileScope | undefined;
  fetcher: ResourceFetcher;
  signal: AbortSignal;
}

/**
 * Fetch every URL, at most `fetchConcurrency` at a time; one that fails is passed to `report` as a
 * blocked or failed issue. Throws RENDER_PDF_FAILED when they pass the budget together.
 */
export async function fetchMany(
  urls: string[],
  budget: ByteBudget,
  options: FetchManyOptions,
  report: (list: 'blocked' | 'failed', issue: ResourceIssue) => void,
): Promise<Map<string, FetchedResource>> {
  const fetched = new Map<string, FetchedResource>();
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
        const resource = await options.fetcher(new URL(href), signal, options.files, share);
        // A fetcher that did not take as it read is charged now.
        if (resource.bytes.byteLength > taken && !share.take(resource.bytes.byteLength - taken))
          throw new Error('over budget');
        fetched.set(href, resource);
      } catch (error) {
        budget.give(taken);
        if (budget.exceeded)
          stop.abort(); // the request fails: the other fetches need not finish
        else if (!options.signal.aborted)
          report(error instanceof RefusedUrlError ? 'blocked' : 'failed', {
            url: href,
            ...(error instanceof RefusedUrlError ? error.refusal : fetchFailure(error)),
          });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(fetchConcurrency, urls.length) }, worker));
  options.signal.throwIfAborted();
  if (budget.exceeded) {
    throw new PdfRenderError(
      'RENDER_PDF_FAILED',
      `the header and footer images and style sheets are larger than ${megabytes(budget.limit)} MB together, the limit for one request`,
      { documentFault: true },
    );
  }
  return fetched;
}

/** Bytes as megabytes with one decimal, for messages. */
export const megabytes = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

// A fetch failure as a caller may see it: an HTTP status, an errno name (ECONNREFUSED), a size or
// time limit; the message itself (a resolved address, a local path) is the operator's detail.
function fetchFailure(error: unknown): Omit<ResourceIssue, 'url'> {
  const detail = error instanceof Error ? error.message : String(error);
  const match = /^HTTP (\d{3})$/.exec(detail);
  if (match) return { code: 'HTTP_ERROR', reason: detail };
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  const connection = connectionFailureOf(errno);
  if (connection) return { ...connection, detail };
  const reason =
    error instanceof LocalFileError
      ? detail
      : (error as Error | undefined)?.name === 'AbortError'
        ? 'timed out or cancelled'
        : /^the response is larger than \d+ bytes$/.test(detail)
          ? detail
          : typeof errno === 'string' && /^E[A-Z_]+$/.test(errno)
            ? errno
            : 'failed to load';
  return reason === detail ? { code: 'LOAD_FAILED', reason } : { code: 'LOAD_FAILED', reason, detail };
}
