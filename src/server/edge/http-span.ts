/** The span of each HTTP request the server answers, a child of the caller's `traceparent` when it sends one. */
import { SpanKind } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { routePattern } from '../../route-pattern.js';
import { contextOf, inSpan, markError } from '../../tracing/spans.js';

/**
 * Middleware (first of the app's, so every other one runs inside the span and logs its trace id):
 * a SERVER span named "METHOD route" after the route that answered. Its attributes are the
 * method, the route pattern and the status; never the path itself, whose ids (a file's is a
 * capability) and query would be in every trace store.
 */
/**
 * Probes and scrapes, every few seconds from every orchestrator and Prometheus: a trace each would
 * be most of what a collector stores, and tells nothing a metric does not.
 */
const untraced = new Set(['/healthz', '/readyz', '/metrics']);

export function httpSpan(): MiddlewareHandler {
  return async (c, next) => {
    if (untraced.has(c.req.path)) return next();
    const parent = contextOf(c.req.header('traceparent'), c.req.header('tracestate'));
    const method = c.req.method;
    await inSpan(
      method,
      async (span) => {
        await next();
        const route = routePattern(c);
        if (route) span.updateName(`${method} ${route}`).setAttribute(ATTR_HTTP_ROUTE, route);
        const status = c.res.status;
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
        // Only the server's own failures are errors of its span; a 4xx is the caller's (semantic conventions).
        if (status >= 500) markError(span, String(status));
      },
      {
        kind: SpanKind.SERVER,
        parent,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_URL_SCHEME]: c.req.url.startsWith('https:') ? 'https' : 'http',
        },
      },
    );
  };
}
