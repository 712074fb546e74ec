/**
 * A render's extraHttpHeaders on the wire. http:// requests reach the egress proxy as plain proxy
 * requests but https:// ones as CONNECT tunnels, so the proxy cannot add headers; the page's own
 * DevTools Fetch domain does, pausing http(s) requests only while a document with the field renders
 * (page-guard.ts owns the Fetch patterns). Each request, and each hop of a redirect (Chromium pauses
 * every hop, and an override never follows a redirect), gets the headers only when its origin is
 * one the request named.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import { headerOrigins } from '../../extra-http-headers.js';
import type { RenderRequest } from '../../request.js';

/** A render's headers and the origins they go to. */
export interface ExtraHeaders {
  headers: Record<string, string>;
  origins: ReadonlySet<string>;
}

/** The Fetch patterns that pause a document's network requests (in addition to the guard's own). */
export const networkPatterns: Protocol.Fetch.RequestPattern[] = [{ urlPattern: 'http:*' }, { urlPattern: 'https:*' }];

/** Whether a paused request is a network one (http or https), which the headers decide, not the guard's refusals. */
export const isNetworkUrl = (url: string): boolean => /^https?:/i.test(url);

/** The request's extraHttpHeaders and where they go, or null when it has none. */
export function extraHeadersOf(request: RenderRequest): ExtraHeaders | null {
  return request.extraHttpHeaders ? { headers: request.extraHttpHeaders, origins: headerOrigins(request) } : null;
}

/**
 * Let a paused http(s) request go on: with `extra`'s headers (replacing the request's own of the
 * same names) when its origin is in their scope, unchanged otherwise, and when `extra` is null (the
 * render that asked for them has ended).
 */
export function continueWithHeaders(
  client: CDPSession,
  event: Protocol.Fetch.RequestPausedEvent,
  extra: ExtraHeaders | null,
): void {
  const { requestId, request } = event;
  const origin = URL.parse(request.url)?.origin;
  const params: Protocol.Fetch.ContinueRequestRequest = { requestId };
  if (extra && origin && extra.origins.has(origin)) {
    const added = new Set(Object.keys(extra.headers).map((name) => name.toLowerCase()));
    params.headers = [
      ...Object.entries(request.headers)
        .filter(([name]) => !added.has(name.toLowerCase()))
        .map(([name, value]) => ({ name, value })),
      ...Object.entries(extra.headers).map(([name, value]) => ({ name, value })),
    ];
  }
  // A request the page gave up on meanwhile (a navigation away) cannot be continued, and need not be.
  void client.send('Fetch.continueRequest', params).catch(() => undefined);
}
