/**
 * Rate limiting for render-sync: N requests per caller per fixed one-minute window, counted in
 * SQLite. A caller is its API key when auth is on, else its address. Every response carries the
 * IETF RateLimit-Policy and RateLimit headers; a 429 also carries Retry-After.
 */
import type { MiddlewareHandler } from 'hono';
import { PdfRenderError } from '../errors.js';
import { windowMs } from '../store/rate-windows.js';
import { callerKey } from './caller.js';
import type { AppDeps } from './deps.js';

/** Middleware counting each request against its caller's window. */
export function rateLimit(deps: AppDeps): MiddlewareHandler<{ Variables: { apiKey: string | undefined } }> {
  const { config, rateWindows, clock } = deps;
  const windowSeconds = windowMs / 1000;
  return async (c, next) => {
    const now = clock.now();
    const { count, resetAt } = rateWindows.hit(callerKey(c, config.trustProxy), now);
    const remaining = Math.max(0, config.rateLimit - count);
    const reset = Math.max(1, Math.ceil((resetAt - now) / 1000));
    c.header('RateLimit-Policy', `"sync";q=${config.rateLimit};w=${windowSeconds}`);
    c.header('RateLimit', `"sync";r=${remaining};t=${reset}`);
    if (count > config.rateLimit) {
      throw new PdfRenderError('RATE_LIMITED', `rate limit of ${config.rateLimit} render-sync requests per minute reached; try again in ${reset} s`, {
        retryAfter: reset,
      });
    }
    await next();
  };
}
