/**
 * Who owns a webhook endpoint, a job (its status and its events) and a rendered file: the API key
 * that made it. Owners are plain strings so both stores compare them with `=`:
 * - `key:<sha256 hex of the key>`: an API key's (the caller a request with that key is, see
 *   server/edge/caller.ts);
 * - `''`: no key. Made with auth off (a developer box: everything is no key's, so nothing is kept
 *   apart), by the operator without naming a key, or before owners existed. With auth on, no key's
 *   endpoints receive no key's events, since every request then has a key.
 * - `'*'`: every key's: a global endpoint the operator registered on purpose, which receives every
 *   job's events.
 */
import { createHash } from 'node:crypto';

export const noOwner = '';
export const everyOwner = '*';

/** The owner an API key is (as the caller of a request made with it). */
export const keyOwner = (key: string): string => `key:${createHash('sha256').update(key).digest('hex')}`;

/** ownerOfCaller in SQL, for the job caller column `column` (both stores). */
export const ownerOfCallerSql = (column: string): string =>
  `CASE WHEN ${column} LIKE 'key:%' THEN ${column} ELSE '${noOwner}' END`;

/** The owner of a job and of what it makes, from its caller: the key's, or no key's when auth was off (an address). */
export const ownerOfCaller = (caller: string): string => (caller.startsWith('key:') ? caller : noOwner);

/** An owner as the listings say it: a key by the first 12 hex digits of its SHA-256 (the key itself is never stored). */
export function ownerLabel(owner: string): string {
  if (owner === everyOwner) return 'global';
  if (owner === noOwner) return 'no key';
  return `key ${owner.slice('key:'.length, 'key:'.length + 12)}`;
}
