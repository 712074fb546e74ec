/** One access-log line per request: method, path, status, ms, bytes (and the trace id when traced); pretty or JSON lines. */
import type { MiddlewareHandler } from 'hono';
import { CountedResponse } from './counted-response.js';
import { requestIdOf } from './request-id.js';
import type { AccessLogEntry } from '../deps.js';
import { traceFields } from '../../tracing/spans.js';

/** Middleware that measures each request and hands the entry to `log`. */
export function accessLog(log: (entry: AccessLogEntry) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const entry = {
      requestId: requestIdOf(c),
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      ms: Math.round(performance.now() - started),
      ...traceFields(),
    };
    // Over a socket (listen.ts), the response counts its bytes as Node writes it: logged then, in
    // the same tick as its end, so the line is there before the caller has the answer.
    const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing;
    if (outgoing instanceof CountedResponse) return outgoing.whenDone((bytes) => log({ ...entry, bytes }));
    // In-process requests (app.request()) have no Node response: the body, already in memory, is measured from a copy.
    const header = c.res.headers.get('content-length');
    const bytes = header !== null ? Number(header) : c.res.body ? (await c.res.clone().arrayBuffer()).byteLength : 0;
    log({ ...entry, bytes });
  };
}

/** A writer for access-log entries in the chosen format. */
export function accessLogWriter(
  format: 'pretty' | 'json',
  write: (line: string) => void,
): (entry: AccessLogEntry) => void {
  return (entry) =>
    write(
      format === 'json'
        ? JSON.stringify({ time: new Date().toISOString(), ...entry })
        : `${new Date().toISOString()} ${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms ${entry.bytes} B${entry.requestId ? ` ${entry.requestId}` : ''}${entry.traceId ? ` trace ${entry.traceId}` : ''}`,
    );
}
