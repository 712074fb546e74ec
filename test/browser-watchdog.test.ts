/**
 * The watchdog's rule, with real timers and a real round trip over a loopback socket standing in
 * for the DevTools pipe: a ping left unanswered is a hung browser, but a pdfrender whose own event
 * loop froze (replies waiting unread) is not, and a ping that fails (the browser died) stops the watch.
 */
import { createServer, connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchBrowser } from '../src/engine/browser-watchdog.js';
import { until } from './support/wait.js';

let echo: ReturnType<typeof createServer>;
let socket: Socket;

beforeAll(async () => {
  echo = createServer((peer) => peer.pipe(peer));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  const { port } = echo.address() as { port: number };
  socket = connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
});

afterAll(async () => {
  socket.destroy();
  await new Promise((resolve) => echo.close(resolve));
});

/** A ping answered by the echo server: the reply arrives as I/O, read only when the event loop gets to it. */
function ping(): Promise<void> {
  return new Promise((resolve) => {
    socket.once('data', () => resolve());
    socket.write('.');
  });
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the browser watchdog', () => {
  it('calls a browser hung once a ping stays unanswered, and says so without waiting', async () => {
    let hung = 0;
    const watchdog = watchBrowser(
      () => new Promise(() => undefined),
      200,
      () => (hung += 1),
    );
    try {
      expect(watchdog.answering()).toBe(true);
      await until(() => hung > 0, 'the hang to be called');
      expect(watchdog.answering()).toBe(false);
      await wait(400);
      expect(hung).toBe(1);
    } finally {
      watchdog.stop();
    }
  });

  it('keeps a browser that answers, even when pdfrender itself froze for many hang timeouts', async () => {
    let hung = 0;
    let pings = 0;
    const watchdog = watchBrowser(
      () => (pings++, ping()),
      200,
      () => (hung += 1),
    );
    try {
      await until(() => pings >= 3, 'three pings');
      // The event loop blocked (a synchronous wait, as on a held SQLite lock) just after a ping went
      // out: its reply sits unread while the clock runs past the hang timeout five times over.
      const sent = pings;
      while (pings === sent) await new Promise((resolve) => setImmediate(resolve));
      const thawAt = Date.now() + 1_000;
      while (Date.now() < thawAt) {
        // frozen
      }
      await until(() => pings >= sent + 3 || hung > 0, 'three more pings, or a hang called');
      expect(hung).toBe(0);
      expect(watchdog.answering()).toBe(true);
    } finally {
      watchdog.stop();
    }
  });

  it('stops watching a browser whose ping fails (it disconnected): that is a death, not a hang', async () => {
    let hung = 0;
    let pings = 0;
    const watchdog = watchBrowser(
      () => (pings++, Promise.reject(new Error('the browser has disconnected'))),
      100,
      () => (hung += 1),
    );
    await until(() => pings > 0, 'the first ping');
    await wait(400);
    expect(pings).toBe(1);
    expect(hung).toBe(0);
    expect(watchdog.answering()).toBe(false);
  });
});
