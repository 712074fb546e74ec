/**
 * Who a request comes from, for rate limits and identifier dedupe: its API key, else its address;
 * and whose its work is (store/owners.ts): its key's, or no key's with auth off.
 */
import type { Context } from 'hono';
import type { ServeConfig } from '../config.js';
import { clientAddress } from './client-address.js';
import { connectionOf } from './connection.js';

/** The key a request was let in with (auth on), as the owner of what it makes; undefined with auth off, where nothing is kept apart. */
export function keyOf(c: Context<{ Variables: { apiKey: string | undefined } }>): string | undefined {
  const apiKey = c.get('apiKey');
  return apiKey ? `key:${apiKey}` : undefined;
}

/** "key:<digest>" when auth is on, else "ip:<address>" (read through X-Forwarded-For only as far as --trust-proxy trusts). */
export function callerKey(
  c: Context<{ Variables: { apiKey: string | undefined } }>,
  config: Pick<ServeConfig, 'trustProxy'>,
): string {
  const key = keyOf(c);
  if (key) return key;
  return `ip:${clientAddress(connectionOf(c)?.remoteAddress, c.req.header('x-forwarded-for'), config.trustProxy) ?? 'unknown'}`;
}
