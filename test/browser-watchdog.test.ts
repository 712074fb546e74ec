/**
 * The watchdog's rule, with real timers and a real round trip over a loopback socket standing in
 * for the DevTools pipe: a ping left unanswered is a hung browser, but a pdfrender whose own event
 * loop froze (replies waiting unread) is not, and a ping that fails (the browser died) stops the watch.
 */
import { createServer, connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchBrowser } from '../src/engine/browser/browser-watchdog.js';
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

/**
 * Resolve once `count` periods of `periodMs` have gone by on this event loop, counted as firings of
 * an interval of that period set now. Node fires due timers of one period in the order they were set,
 * so a watchdog's interval of the same period, set earlier, has come round at least as often: however
 * slow the machine, the watchdog had that many ticks in which to act.
 */
function periods(periodMs: number, count: number): Promise<void> {
  return new Promise((resolve) => {
    let left = count;
    const timer = setInterval(() => {
      left -= 1;
      if (left > 0) return;
      clearInterval(timer);
      resolve();
    }, periodMs);
  });
}

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
      // Still watching, it would call the hang again at its next tick (every 200 / 5 ms): ten of its
      // ticks, two hang timeouts, go by without another call.
      await periods(200 / 5, 10);
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
    // Still watching, it would call the failed ping a hang five ticks (every 100 / 5 ms) later: ten of
    // its ticks, two hang timeouts, go by without another ping or a hang.
    await periods(100 / 5, 10);
    expect(pings).toBe(1);
    expect(hung).toBe(0);
    expect(watchdog.answering()).toBe(false);
  });
});

describe('the browser watchdog, with the browser process working', () => {
  // A browser relaying a document's flood answers nothing but works the whole time: its CPU time
  // grows (half a core), or on a loaded machine it gets no core but is runnable.
  it.each([
    ['its CPU time grows', (started: number) => () => ({ cpuMs: (performance.now() - started) / 2, runnable: false })],
    ['it gets no CPU time but is runnable (a loaded machine)', () => () => ({ cpuMs: 0, runnable: true })],
  ])('keeps a browser that leaves its ping unanswered while %s, up to six hang timeouts', async (_, workOf) => {
    let hung = 0;
    const started = performance.now();
    const watchdog = watchBrowser(
      () => new Promise(() => undefined),
      100,
      () => (hung += 1),
      workOf(started),
    );
    try {
      // Three hang timeouts (15 of its ticks) go by without a hang called...
      await periods(100 / 5, 15);
      expect(hung).toBe(0);
      // ...but a browser busy without answering is killed once six have passed.
      await until(() => hung > 0, 'the hang to be called after six hang timeouts');
      expect(performance.now() - started).toBeGreaterThanOrEqual(600);
    } finally {
      watchdog.stop();
    }
  });

  it('calls a browser hung one hang timeout after its CPU time stopped growing', async () => {
    let hung = 0;
    const started = performance.now();
    // Working for 200 ms, then stopped (SIGSTOP, a deadlock): its CPU time stands still from then on.
    const cpu = () => ({ cpuMs: Math.min(performance.now() - started, 200) / 2, runnable: false });
    const watchdog = watchBrowser(
      () => new Promise(() => undefined),
      100,
      () => (hung += 1),
      cpu,
    );
    try {
      await until(() => hung > 0, 'the hang to be called');
      const calledAt = performance.now() - started;
      expect(calledAt).toBeGreaterThanOrEqual(200 + 100);
      expect(calledAt).toBeLessThan(600);
    } finally {
      watchdog.stop();
    }
  });
});
