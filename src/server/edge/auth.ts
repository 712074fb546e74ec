/**
 * API-key auth: with keys configured every /api route needs `Authorization: Bearer <key>`, except
 * what app.ts leaves open (file downloads, unless --private-files). Keys are compared as SHA-256
 * digests with timingSafeEqual, so the comparison takes the same time whatever the key and however
 * long it is.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { PdfRenderError } from '../../errors.js';

const digest = (key: string) => createHash('sha256').update(key).digest();

/**
 * Middleware that checks the bearer key; sets `apiKey` (the matched key's digest, hex) for the rate
 * limiter. A request `open` answers true for passes with no key looked at, a wrong one included.
 */
export function apiKeyAuth(
  keys: readonly string[],
  open: (c: Context) => boolean = () => false,
): MiddlewareHandler<{ Variables: { apiKey: string | undefined } }> {
  const digests = keys.map(digest);
  return async (c, next) => {
    if (digests.length === 0 || open(c)) return next();
    const header = c.req.header('authorization');
    const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (!match) throw new PdfRenderError('MISSING_API_KEY', 'send your API key as "Authorization: Bearer <key>"');
    const given = digest(match[1]!);
    // Compare against every key, not stopping at the first match, so timing says nothing either.
    let found: Buffer | undefined;
    for (const candidate of digests) if (timingSafeEqual(candidate, given)) found = candidate;
    if (!found) throw new PdfRenderError('INVALID_API_KEY', 'the API key is not valid');
    c.set('apiKey', found.toString('hex'));
    return next();
  };
}
