/**
 * Rate limiting for render-sync: N requests per caller per fixed one-minute window, counted in
 * SQLite. A caller is its API key when auth is on, else its address. Every render-sync response
 * carries the IETF RateLimit-Policy and RateLimit headers (rateLimitPolicy, mounted first in
 * app.ts), and a 429 Retry-After. Requests refused before counting (401, 413, 503, 507) are not
 * counted; their RateLimit reads the caller's window as it stands. The host and cross-site guards
 * run before it, so their 421 and 403 carry no rate-limit headers.
 */
import type { MiddlewareHandler } from 'hono';
import { PdfRenderError } from '../../errors.js';
import { windowMs } from '../../store/rate-window.js';
import { callerKey } from './caller.js';
import type { AppDeps } from '../deps.js';

/** The RateLimit-Policy header value: the one "sync" quota per window. */
export function policyHeader(rateLimit: number): string {
  return `"sync";q=${rateLimit};w=${windowMs / 1000}`;
}

/**
 * Middleware that puts RateLimit-Policy and RateLimit on every response of its route, refusals
 * included: it is mounted before draining, auth and the body limit, and sets the headers on
 * whatever comes back; a request that was never counted gets its window as it stands.
 */
export function rateLimitPolicy(deps: AppDeps): MiddlewareHandler<{ Variables: { apiKey: string | undefined } }> {
  const { config, rateWindows, clock } = deps;
  const policy = policyHeader(config.rateLimit);
  return async (c, next) => {
    await next();
    c.res.headers.set('RateLimit-Policy', policy);
    if (!c.res.headers.has('RateLimit')) {
      const now = clock.now();
      c.res.headers.set(
        'RateLimit',
        limitHeader(config.rateLimit, await rateWindows.peek(callerKey(c, config), now), now),
      );
    }
  };
}

// "sync";r=<remaining>;t=<seconds until the window resets>
function limitHeader(rateLimit: number, window: { count: number; resetAt: number }, now: number): string {
  return `"sync";r=${Math.max(0, rateLimit - window.count)};t=${secondsUntil(window.resetAt, now)}`;
}

function secondsUntil(resetAt: number, now: number): number {
  return Math.max(1, Math.ceil((resetAt - now) / 1000));
}

/** Middleware counting each request against its caller's window. */
export function rateLimit(deps: AppDeps): MiddlewareHandler<{ Variables: { apiKey: string | undefined } }> {
  const { config, rateWindows, clock } = deps;
  return async (c, next) => {
    const now = clock.now();
    const window = await rateWindows.hit(callerKey(c, config), now);
    const { count } = window;
    const reset = secondsUntil(window.resetAt, now);
    c.header('RateLimit-Policy', policyHeader(config.rateLimit));
    c.header('RateLimit', limitHeader(config.rateLimit, window, now));
    if (count > config.rateLimit) {
      throw new PdfRenderError(
        'RATE_LIMITED',
        `rate limit of ${config.rateLimit} render-sync requests per minute reached; try again in ${reset} s`,
        {
          retryAfter: reset,
        },
      );
    }
    await next();
  };
}
