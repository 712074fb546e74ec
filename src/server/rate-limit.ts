/**
 * Rate limiting for render-sync: N requests per caller per fixed one-minute window, counted in
 * SQLite. A caller is its API key when auth is on, else its address. Every render-sync response
 * carries the IETF RateLimit-Policy header (rateLimitPolicy, mounted first in app.ts); every counted
 * one carries RateLimit too, and a 429 Retry-After. Requests refused before counting (401, 413, 503
 * while draining) are not counted, so their RateLimit would be a guess and is left out.
 */
import type { MiddlewareHandler } from 'hono';
import { PdfRenderError } from '../errors.js';
import { windowMs } from '../store/rate-windows.js';
import { callerKey } from './caller.js';
import type { AppDeps } from './deps.js';

/** The RateLimit-Policy header value: the one "sync" quota per window. */
export function policyHeader(rateLimit: number): string {
  return `"sync";q=${rateLimit};w=${windowMs / 1000}`;
}

/**
 * Middleware that puts RateLimit-Policy on every response of its route, refusals included: it is
 * mounted before draining, auth and the body limit, and sets the header on whatever comes back.
 */
export function rateLimitPolicy(rateLimit: number): MiddlewareHandler {
  const policy = policyHeader(rateLimit);
  return async (c, next) => {
    await next();
    c.res.headers.set('RateLimit-Policy', policy);
  };
}

/** Middleware counting each request against its caller's window. */
export function rateLimit(deps: AppDeps): MiddlewareHandler<{ Variables: { apiKey: string | undefined } }> {
  const { config, rateWindows, clock } = deps;
  return async (c, next) => {
    const now = clock.now();
    const { count, resetAt } = rateWindows.hit(callerKey(c, config.trustProxy), now);
    const remaining = Math.max(0, config.rateLimit - count);
    const reset = Math.max(1, Math.ceil((resetAt - now) / 1000));
    c.header('RateLimit-Policy', policyHeader(config.rateLimit));
    c.header('RateLimit', `"sync";r=${remaining};t=${reset}`);
    if (count > config.rateLimit) {
      throw new PdfRenderError('RATE_LIMITED', `rate limit of ${config.rateLimit} render-sync requests per minute reached; try again in ${reset} s`, {
        retryAfter: reset,
      });
    }
    await next();
  };
}
