/** Who a request comes from, for rate limits and identifier dedupe: its API key, else its address. */
import type { Context } from 'hono';
import type { ServeConfig } from '../config.js';
import { clientAddress } from './client-address.js';
import { connectionOf } from './connection.js';

/** "key:<digest>" when auth is on, else "ip:<address>" (read through X-Forwarded-For only as far as --trust-proxy trusts). */
export function callerKey(
  c: Context<{ Variables: { apiKey: string | undefined } }>,
  config: Pick<ServeConfig, 'trustProxy'>,
): string {
  const apiKey = c.get('apiKey');
  if (apiKey) return `key:${apiKey}`;
  return `ip:${clientAddress(connectionOf(c)?.remoteAddress, c.req.header('x-forwarded-for'), config.trustProxy) ?? 'unknown'}`;
}
