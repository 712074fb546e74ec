/**
 * --min-upload-rate after --upload-grace: a request body that trickles is cut with 408 and its
 * connection closed, as Node cuts one past --request-timeout, but seconds in rather than a minute,
 * so a client trickling many uploads holds its slots briefly. The rule is Apache mod_reqtimeout's
 * (body=grace,MinRate=rate): each byte received buys 1/rate s more, so a body t s after its headers
 * must have (t - grace) x rate bytes in. One timer per request with a body, re-armed to the moment
 * the bytes so far run out; the socket's byte count is read then, so the parser's fast path stays.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TrustProxy } from '../../network/trust-proxy.js';
import { clientAddress } from './client-address.js';

/** What Node itself writes for a request that took too long (_http_server.js), then closes. */
const requestTimeoutResponse = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';

/** The bounds, and whom to tell of a cut upload (the client's address, what arrived, and in how long). */
export interface UploadRateOptions {
  /** Bytes per second. */
  minRate: number;
  graceMs: number;
  /** How to name the client (behind a proxy, from X-Forwarded-For). */
  trustProxy: TrustProxy;
  cut: (from: string, received: number, ms: number) => void;
}

/** Cut every request body to `server` that falls behind the minimum rate once the grace is over. */
export function enforceUploadRate(
  server: { on(event: 'request', listener: (req: IncomingMessage, res: ServerResponse) => void): unknown },
  options: UploadRateOptions,
): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => watchUpload(req, res, options));
}

function watchUpload(req: IncomingMessage, res: ServerResponse, options: UploadRateOptions): void {
  const { minRate, graceMs } = options;
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && Number(length) > 0);
  if (!hasBody || req.complete) return;
  const socket = req.socket;
  const started = performance.now();
  // Bytes that came with the headers are not counted: one read at most, which only a body near the floor notices.
  let since = started;
  let base = socket.bytesRead;
  let timer: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    timer = setTimeout(check, Math.max(50, ms));
    timer.unref();
  };
  const check = () => {
    if (req.complete || socket.destroyed) return;
    const now = performance.now();
    // Node stops reading the socket once this much waits unread: the app, not the client, is behind
    // (a route that has not read the body yet), so the client starts afresh from here.
    if (req.readableLength >= req.readableHighWaterMark) {
      since = now;
      base = socket.bytesRead;
      return arm(graceMs);
    }
    const received = socket.bytesRead - base;
    const due = since + graceMs + (received / minRate) * 1000;
    if (now < due) return arm(due - now);
    if (!res.headersSent && socket.writable) socket.write(requestTimeoutResponse);
    socket.destroy();
    const forwarded = req.headers['x-forwarded-for'];
    const from = clientAddress(socket.remoteAddress, String(forwarded ?? '') || undefined, options.trustProxy);
    options.cut(from ?? 'an unknown address', received, now - started);
  };
  const stop = () => clearTimeout(timer);
  req.once('end', stop);
  req.once('close', stop);
  arm(graceMs);
}
