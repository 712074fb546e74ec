/** One access-log line per request: method, path, status, ms, bytes; pretty or JSON lines. */
import type { MiddlewareHandler } from 'hono';
import type { AccessLogEntry } from './deps.js';

/** Middleware that measures each request and hands the entry to `log`. */
export function accessLog(log: (entry: AccessLogEntry) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const header = c.res.headers.get('content-length');
    // Bodies here are JSON or a PDF already in memory, so measuring a copy is cheap.
    const bytes = header !== null ? Number(header) : c.res.body ? (await c.res.clone().arrayBuffer()).byteLength : 0;
    log({ method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(performance.now() - started), bytes });
  };
}

/** A writer for access-log entries in the chosen format. */
export function accessLogWriter(format: 'pretty' | 'json', write: (line: string) => void): (entry: AccessLogEntry) => void {
  return (entry) =>
    write(
      format === 'json'
        ? JSON.stringify({ time: new Date().toISOString(), ...entry })
        : `${new Date().toISOString()} ${entry.method} ${entry.path} ${entry.status} ${entry.ms} ms ${entry.bytes} B`,
    );
}
