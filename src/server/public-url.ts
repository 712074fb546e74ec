/**
 * Absolute URLs in responses and webhooks. Never from the request's Host header, which the caller
 * writes: --public-url when set (behind a proxy), else the address the server listens on, and when
 * that is a wildcard (0.0.0.0, ::), the local address the connection arrived on.
 */
import type { Context } from 'hono';
import type { ServeConfig } from './config.js';
import { addressRange, normalizeAddress } from '../network/address-spelling.js';
import { connectionOf } from './edge/connection.js';

/** Where the server listens; listen() fills `address` in once it does (port 0 resolved to the real port). */
export interface Listening {
  address?: { address: string; port: number };
}

interface UrlDeps {
  config: Pick<ServeConfig, 'publicUrl' | 'host'>;
  listening: Listening;
}

/** The base of this server's absolute URLs, as the caller should use them (no trailing slash). */
export function publicBase(c: Context, deps: UrlDeps): string {
  if (deps.config.publicUrl) return deps.config.publicUrl.replace(/\/+$/, '');
  const bound = deps.listening.address;
  if (!bound)
    throw new Error(
      'absolute URLs asked for before the server listens (give --public-url to build them without a listener)',
    );
  if (!isWildcard(bound.address)) return `http://${urlHost(deps.config.host, bound.address)}:${bound.port}`;
  const socket = connectionOf(c);
  const local = socket?.localAddress && normalizeAddress(socket.localAddress);
  if (!local || !socket.localPort)
    throw new Error(
      'a wildcard listener has no address of its own, and this request came without a connection; set --public-url',
    );
  return `http://${bracketed(local)}:${socket.localPort}`;
}

/** The absolute URL of `path` on this server, as the caller should use it. */
export function absoluteUrl(c: Context, deps: UrlDeps, path: string): string {
  return `${publicBase(c, deps)}${path}`;
}

/** True for 0.0.0.0 and ::, which are not addresses anyone can reach. */
export function isWildcard(address: string): boolean {
  return addressRange(address) === 'unspecified';
}

/** The host part of a URL for `host` as configured: a name as given (it is how the operator named the machine), an IP literal as the listener reports it. */
export function urlHost(configured: string, bound: string): string {
  return normalizeAddress(configured) === null ? configured.toLowerCase() : bracketed(normalizeAddress(bound) ?? bound);
}

/** An IPv6 address in brackets, as URLs and Host headers write it. */
export function bracketed(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}
