/**
 * The minimum upload rate's rule (server/edge/upload-rate.ts) on a fake request, with fake timers:
 * what the loopback test in client-slots.test.ts cannot stage, a body the server holds back by not
 * reading it, which must not count against the client.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enforceUploadRate } from '../src/server/edge/upload-rate.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

/** A request with a 100 kB body whose socket has read `bytesRead` so far, and what was cut. */
function upload() {
  const server = new EventEmitter();
  const cuts: Array<{ from: string; received: number }> = [];
  enforceUploadRate(server, {
    minRate: 1000,
    graceMs: 1000,
    trustProxy: 0,
    cut: (from, received) => cuts.push({ from, received }),
  });
  const socket = Object.assign(new EventEmitter(), {
    bytesRead: 0,
    destroyed: false,
    writable: true,
    remoteAddress: '::ffff:192.0.2.7',
    written: '',
    write(text: string) {
      socket.written += text;
      return true;
    },
    destroy() {
      socket.destroyed = true;
    },
  });
  const req = Object.assign(new EventEmitter(), {
    headers: { 'content-length': '100000' },
    complete: false,
    socket,
    readableLength: 0,
    readableHighWaterMark: 16_384,
  });
  server.emit('request', req as unknown as IncomingMessage, { headersSent: false } as ServerResponse);
  return { req, socket, cuts };
}

describe('the minimum upload rate', () => {
  it('gives the grace, then a second more per 1000 bytes, and cuts with 408 when the bytes run out', () => {
    const { socket, cuts } = upload();
    vi.advanceTimersByTime(900);
    socket.bytesRead = 2000;
    // Due at 1 s + 2 s: still going at 2.9 s.
    vi.advanceTimersByTime(2000);
    expect(socket.destroyed).toBe(false);
    vi.advanceTimersByTime(200);
    expect(socket.destroyed).toBe(true);
    expect(socket.written).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
    expect(cuts).toEqual([{ from: '192.0.2.7', received: 2000 }]);
  });

  it('does not count the time the server leaves the body unread, and stops watching a body that is in', () => {
    const held = upload();
    // A full buffer the route has not read: Node stopped reading the socket, the client waits on us.
    held.req.readableLength = 16_384;
    vi.advanceTimersByTime(30_000);
    expect(held.socket.destroyed).toBe(false);
    // The route reads it: the client is timed afresh from the last look that found it held back.
    held.req.readableLength = 0;
    vi.advanceTimersByTime(900);
    expect(held.socket.destroyed).toBe(false);
    vi.advanceTimersByTime(1200);
    expect(held.socket.destroyed).toBe(true);

    const done = upload();
    done.req.complete = true;
    done.req.emit('end');
    vi.advanceTimersByTime(60_000);
    expect(done.socket.destroyed).toBe(false);
    expect(done.cuts).toEqual([]);
  });
});
