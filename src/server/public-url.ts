/** Absolute URLs in responses: --public-url when set (behind a proxy), else the request's own origin. */
import type { Context } from 'hono';
import type { ServeConfig } from '../config.js';

/** The absolute URL of `path` on this server, as the caller should use it. */
export function absoluteUrl(c: Context, config: ServeConfig, path: string): string {
  const base = config.publicUrl ?? new URL(c.req.url).origin;
  return `${base.replace(/\/+$/, '')}${path}`;
}
