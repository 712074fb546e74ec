/**
 * Each request's ID: the caller's (or its proxy's) X-Request-Id when it is a plain token, else one
 * made here; answered in X-Request-Id and written on every log line of the request, so a caller's
 * report ("request abc failed") finds its lines.
 */
import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';

// Kept by the request's Context, which every middleware and the error handler share: not by its
// Request, which the body limit replaces for a body without Content-Length.
const ids = new WeakMap<Context, string>();

// What a proxy or client sends (a UUID, a hex trace id, a ULID): anything else is not written into the log.
const plainToken = /^[A-Za-z0-9._:-]{1,128}$/;

/** Middleware that gives each request its ID and answers it in X-Request-Id. */
export function assignRequestId(): MiddlewareHandler {
  return async (c, next) => {
    const given = c.req.header('x-request-id');
    const id = given !== undefined && plainToken.test(given) ? given : randomUUID();
    ids.set(c, id);
    c.header('X-Request-Id', id);
    await next();
  };
}

/** The request's ID, once assignRequestId has run. */
export const requestIdOf = (c: Context): string | undefined => ids.get(c);

/** Where an event of the operator's log happened: the request ("POST /api/pdfs/render-sync") and its ID. */
export const requestWhere = (c: Context) => ({ request: `${c.req.method} ${c.req.path}`, requestId: requestIdOf(c) });
