/**
 * Who a request comes from, for rate limits and identifier dedupe: its API key, else its address;
 * and whose its work is (store/owners.ts): its key's, or no key's with auth off.
 */
import type { Context } from 'hono';
import type { ServeConfig } from '../config.js';
import { clientAddress } from './client-address.js';
import { connectionOf } from './connection.js';
import { keyOwner } from '../../store/owners.js';

/** The key a request was let in with (auth on), as the owner of what it makes; undefined with auth off, where nothing is kept apart. */
export function keyOf(c: Context<{ Variables: { apiKey: string | undefined } }>): string | undefined {
  const apiKey = c.get('apiKey');
  return apiKey ? `key:${apiKey}` : undefined;
}

/**
 * Whose endpoints, jobs and files a request sees (store/owners.ts): its key's own, or undefined for
 * all of them, with auth off (nothing is kept apart) or with an --admin-key.
 */
export function viewerOf(
  c: Context<{ Variables: { apiKey: string | undefined } }>,
  config: Pick<ServeConfig, 'adminKeys'>,
): string | undefined {
  const key = keyOf(c);
  return key === undefined || config.adminKeys.some((admin) => keyOwner(admin) === key) ? undefined : key;
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
