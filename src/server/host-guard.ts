/**
 * DNS rebinding guard. A server on loopback without --public-url answers only to the names of
 * this machine: a web page whose own name an attacker re-points at 127.0.0.1 reaches the server
 * with its own name in Host, and is refused, as development servers' allowed-hosts lists do.
 */
import type { MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import type { ServeConfig } from '../config.js';
import { PdfRenderError } from '../errors.js';
import { normalizeAddress } from './client-address.js';
import type { Listening } from './public-url.js';
import { bracketed, urlHost } from './public-url.js';

/** Middleware refusing (421 HOST_NOT_ALLOWED) a Host this loopback server does not answer to; a no-op elsewhere. */
export function hostGuard(deps: { config: Pick<ServeConfig, 'publicUrl' | 'host'>; listening: Listening }): MiddlewareHandler {
  return async (c, next) => {
    const bound = deps.listening.address;
    const host = c.req.header('host');
    // A request without Host is no browser's (app.request() in tests, a bare HTTP/1.0 client).
    if (!deps.config.publicUrl && bound && host !== undefined && isLoopback(bound.address) && !answersTo(host, deps.config.host, bound)) {
      throw new PdfRenderError('HOST_NOT_ALLOWED', `this server answers to localhost, 127.0.0.1 and [::1] on port ${bound.port}, not to "${host.slice(0, 100)}"; set --public-url to serve another name`);
    }
    await next();
  };
}

function isLoopback(address: string): boolean {
  const normalized = normalizeAddress(address);
  return normalized !== null && ipaddr.parse(normalized).range() === 'loopback';
}

function answersTo(host: string, configured: string, bound: { address: string; port: number }): boolean {
  if (!/^[a-z0-9.\-[\]:]+$/i.test(host) || !URL.canParse(`http://${host}`)) return false;
  const url = new URL(`http://${host}`);
  const names = new Set(['localhost', '127.0.0.1', '[::1]', urlHost(configured, bound.address), bracketed(normalizeAddress(bound.address) ?? bound.address)]);
  return names.has(url.hostname) && Number(url.port || 80) === bound.port;
}
