/** Middleware counting each answered request by method, route pattern and status. */
import type { Context, MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { Metrics } from './metrics.js';

/** Count every request into `metrics.httpRequests`, after its answer (an error's status included). */
export function countRequests(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    await next();
    metrics.httpRequests.inc({ method: methodLabel(c.req.method), route: routeLabel(c), status: String(c.res.status) });
  };
}

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

// A caller may send any method name: the rest count as one.
const methodLabel = (method: string) => (methods.has(method) ? method : 'other');

/**
 * The pattern of the route that answered ("/api/pdfs/jobs/:jobId"), never the path itself, which
 * holds ids; "unmatched" when no route did (a 404 or 405 answered before one).
 */
function routeLabel(c: Context): string {
  const routes = matchedRoutes(c).filter((route) => route.method !== 'ALL');
  return routes.at(-1)?.path ?? 'unmatched';
}
