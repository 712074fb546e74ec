/** The TCP connection a request arrived on, when there is one (app.request() in tests has none). */
import type { Socket } from 'node:net';
import type { Context } from 'hono';

/** The request's socket, or undefined without one. */
export function connectionOf(c: Context): Socket | undefined {
  const incoming = (c.env as { incoming?: { socket?: Socket } } | undefined)?.incoming;
  return incoming?.socket;
}
