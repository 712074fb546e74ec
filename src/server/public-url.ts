/** Absolute URLs in responses: --public-url when set (behind a proxy), else the request's own origin. */
import type { Context } from 'hono';
import type { ServeConfig } from '../config.js';

/** The base of this server's absolute URLs, as the caller should use them (no trailing slash). */
export function publicBase(c: Context, config: ServeConfig): string {
  return (config.publicUrl ?? new URL(c.req.url).origin).replace(/\/+$/, '');
}

/** The absolute URL of `path` on this server, as the caller should use it. */
export function absoluteUrl(c: Context, config: ServeConfig, path: string): string {
  return `${publicBase(c, config)}${path}`;
}
