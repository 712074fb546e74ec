/** Who a request comes from, for rate limits and identifier dedupe: its API key, else its address. */
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/** "key:<digest>" when auth is on, else "ip:<address>" (from X-Forwarded-For only when the proxy is trusted). */
export function callerKey(c: Context<{ Variables: { apiKey: string | undefined } }>, trustProxy: boolean): string {
  const apiKey = c.get('apiKey');
  if (apiKey) return `key:${apiKey}`;
  // X-Forwarded-For is whatever the client says unless a proxy we trust wrote it.
  const forwarded = trustProxy ? c.req.header('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
  return `ip:${forwarded || remoteAddress(c) || 'unknown'}`;
}

function remoteAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined; // app.request() in tests has no socket
  }
}
