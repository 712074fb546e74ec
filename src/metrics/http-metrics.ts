/** Middleware counting each answered request by method, route pattern and status. */
import type { MiddlewareHandler } from 'hono';
import { routePattern } from '../route-pattern.js';
import type { Metrics } from './metrics.js';

/** Count every request into `metrics.httpRequests`, after its answer (an error's status included). */
export function countRequests(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    await next();
    metrics.httpRequests.inc({
      method: methodLabel(c.req.method),
      route: routePattern(c) ?? 'unmatched',
      status: String(c.res.status),
    });
  };
}

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

// A caller may send any method name: the rest count as one.
const methodLabel = (method: string) => (methods.has(method) ? method : 'other');
