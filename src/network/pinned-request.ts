/**
 * HTTP requests made by pdfrender itself (header and footer images, webhook deliveries) under the
 * same network policy as documents: the host is resolved once, every address is checked, and the
 * connection goes to the address that was checked, so a DNS answer cannot change in between.
 * Redirects are followed only when asked, each hop checked again.
 */
import type { Agent, IncomingHttpHeaders, RequestOptions } from 'node:http';
import type { LookupFunction } from 'node:net';
import { nodeHttp, nodeHttps } from '../lazy-module.js';
import { raceAbort } from '../race.js';
import { hostDecision, type NetworkPolicy } from './policy.js';
import { urlRefusal, type Refusal } from './refusal.js';
import { resolveChecked, type Resolver } from './resolve-checked.js';

export interface PinnedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
}

export interface PinnedRequestOptions {
  policy: NetworkPolicy;
  resolver?: Resolver | undefined;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** Redirects to follow (GET only); 0 returns the 3xx itself. */
  maxRedirects?: number;
  /** Largest response body read; more is an error. */
  maxBytes?: number;
  /** Asked for each chunk of the body before it is kept; a refusal ends the request with an error. */
  budget?: { take(bytes: number): boolean } | undefined;
  /**
   * Keep-alive connections: the agent to send through to `address`, the one this request's host was
   * checked to. A pooled socket skips `lookup`, so an agent must only ever hold sockets to that
   * address, opened under this same policy. Default: a fresh socket each time.
   */
  agentFor?: ((url: URL, address: string) => Agent) | undefined;
}

/**
 * An error that names a URL the policy refused (as opposed to one that failed to load). Its message
 * is the reason any caller may see; the detail (what the name resolved to, the DNS error) is only in
 * `refusal.detail`, for the operator's log, so passing the message on can never leak it.
 */
export class RefusedUrlError extends Error {
  override readonly name = 'RefusedUrlError';
  readonly refusal: Refusal;

  constructor(refused: Refusal) {
    super(refused.reason);
    this.refusal = refused;
  }
}

/** Make one request under `policy`, following up to `maxRedirects` redirects. */
export async function pinnedRequest(url: URL, options: PinnedRequestOptions): Promise<PinnedResponse> {
  let current = url;
  for (let hop = 0; ; hop += 1) {
    const response = await requestOnce(current, options);
    const location = response.headers.location;
    if (response.status < 300 || response.status >= 400 || !location || hop >= (options.maxRedirects ?? 0))
      return response;
    current = new URL(location, current);
  }
}

/**
 * Throw a RefusedUrlError when `url` may not be requested under `policy` (its scheme, or an address
 * its host resolves to), and the resolver's error when a name that must be checked does not resolve.
 * A host the policy allows outright is not resolved.
 */
export async function checkUrl(url: URL, policy: NetworkPolicy, resolver?: Resolver): Promise<void> {
  if (hostDecision(policy, url.hostname).verdict === 'allow' && isHttp(url)) return;
  await addressFor(url, policy, resolver);
}

// The checked address to connect to for `url`, or a RefusedUrlError.
async function addressFor(url: URL, policy: NetworkPolicy, resolver?: Resolver, signal?: AbortSignal): Promise<string> {
  if (!isHttp(url)) throw new RefusedUrlError(urlRefusal('SCHEME_NOT_ALLOWED', `${url.protocol} URLs are not allowed`));
  const resolving = resolveChecked(policy, url.hostname, resolver);
  const chosen = await (signal ? raceAbort(resolving, signal) : resolving);
  if ('refused' in chosen) throw new RefusedUrlError(chosen.refused);
  return chosen.address;
}

const isHttp = (url: URL) => url.protocol === 'http:' || url.protocol === 'https:';

async function requestOnce(url: URL, options: PinnedRequestOptions): Promise<PinnedResponse> {
  const address = await addressFor(url, options.policy, options.resolver, options.signal);
  // Node asks `lookup` for the host's address (names only; a literal is dialled as it is): it gets
  // the one that was checked, so the socket connects to exactly that.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const family = address.includes(':') ? 6 : 4;
    if (lookupOptions.all)
      (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
        { address, family },
      ]);
    else callback(null, address, family);
  };
  // By default agent: false, a fresh socket each time: a pooled one would skip `lookup`, so a socket
  // opened under one policy (say, webhooks allowed to loopback) could serve a request under another.
  const agent = options.agentFor?.(url, address) ?? false;
  const requestOptions: RequestOptions = {
    method: options.method ?? 'GET',
    headers: options.headers,
    lookup,
    signal: options.signal,
    agent,
  };
  try {
    return await send(url, requestOptions, options);
  } catch (error) {
    if (!(error instanceof StaleSocket)) throw error;
    // A kept-alive socket the other end closed before answering: sent once more, as Node's
    // documentation advises, on a new socket (another idle one may be as stale). The other end may
    // have read the first one: webhook deliveries are at least once, under the same webhook-id.
    return send(url, { ...requestOptions, agent: false }, options);
  }
}

/** The request failed on a reused socket before any answer came (the server had closed it). */
class StaleSocket extends Error {}

function send(url: URL, requestOptions: RequestOptions, options: PinnedRequestOptions): Promise<PinnedResponse> {
  const sendWith = url.protocol === 'https:' ? nodeHttps().request : nodeHttp().request;
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = sendWith(url, requestOptions, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (options.maxBytes !== undefined && size > options.maxBytes)
          return req.destroy(new Error(`the response is larger than ${options.maxBytes} bytes`));
        if (options.budget && !options.budget.take(chunk.length))
          return req.destroy(new Error('the response is larger than the bytes left for it'));
        chunks.push(chunk);
      });
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }),
      );
      res.on('error', reject);
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && !answered && (error.code === 'ECONNRESET' || error.code === 'EPIPE');
      reject(stale ? new StaleSocket(error.message, { cause: error }) : error);
    });
    req.end(options.body);
  });
}
