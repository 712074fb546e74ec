/**
 * Browsers and this API. A web page can send a plain form POST to any address without asking
 * (no preflight), so a state-changing request that a browser marks as coming from another site's
 * page is refused unless its origin is on the --cors-origin list; those origins also get CORS
 * answers, so their pages can read the responses. Clients that are not browsers send neither
 * Origin nor Sec-Fetch-Site and are not affected.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { PdfRenderError } from '../../errors.js';

// What a browser page needs to read besides the body: rate limit and retry advice, the render's
// report headers, and where an answer's file lives.
const exposedHeaders = [
  'Retry-After',
  'RateLimit',
  'RateLimit-Policy',
  'Content-Location',
  'Content-Disposition',
  'X-Pdfrender-Warnings',
  'X-Pdfrender-Report',
].concat(['Blocked', 'Failed'].flatMap((name) => [`X-Pdfrender-${name}`, `X-Pdfrender-${name}-Count`]));

/** CORS answers (preflight included) for the allowed origins; others get no Access-Control-Allow-Origin. */
export function corsAnswers(origins: readonly string[]): MiddlewareHandler {
  return cors({
    origin: (origin) => (origins.includes(origin) ? origin : null),
    allowMethods: ['GET', 'POST', 'DELETE'],
    allowHeaders: ['Authorization', 'Content-Type', 'Accept'],
    exposeHeaders: exposedHeaders,
    maxAge: 600,
  });
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Middleware refusing (403 CROSS_SITE_REQUEST) a state-changing request from another site's page. */
export function crossSiteGuard(origins: readonly string[]): MiddlewareHandler {
  return async (c, next) => {
    const origin = c.req.header('origin');
    const site = c.req.header('sec-fetch-site')?.toLowerCase();
    if (!safeMethods.has(c.req.method) && !(origin !== undefined && origins.includes(origin))) {
      // Sec-Fetch-Site is written by the browser, not the page; without it (older browsers), any Origin is a page's.
      const foreign =
        site === 'cross-site' ||
        site === 'same-site' ||
        (origin !== undefined && site !== 'same-origin' && site !== 'none');
      if (foreign) {
        const from = origin ? `the page at ${origin.slice(0, 200)}` : 'a page of another site';
        throw new PdfRenderError(
          'CROSS_SITE_REQUEST',
          `${c.req.method} from ${from} refused: browser pages of other sites may not change anything here; allow a page's origin with --cors-origin`,
        );
      }
    }
    await next();
  };
}
