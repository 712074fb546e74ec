/**
 * A hung browser under a running `pdfrender serve`: its whole process group stopped (SIGSTOP) and
 * never continued. The watchdog must find it, kill it and start another, the render in flight on
 * it must be tried once more there, a render sent meanwhile must succeed while the old browser is
 * still stopped, and /readyz must answer from what is known, not by asking the stopped browser.
 * A document that keeps its renderer busy for longer than the hang timeout is not a hung browser.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseRunOptions } from '../src/cli/run-options.js';
import { loadServeConfig } from '../src/server/config.js';
import { killLater, killLeftovers, onlyBrowserOf, remainingAfter, stateOf } from './support/chromium-processes.js';
import { startServe, type ServeProcess } from './support/cli.js';
import { busyScript, removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

afterAll(async () => {
  killLeftovers();
  await removeTempDirs();
});

/**
 * A serve with a 2 s hang timeout, given as the environment twin (a release without the setting
 * ignores it, so on one the test fails on what it checks, not on an unknown flag).
 */
async function serve(extra: string[] = []): Promise<ServeProcess> {
  const dataDir = await tempDir();
  const server = await startServe(
    ['--data-dir', dataDir, '--concurrency', '2', '--timeout', '15s', '--rate-limit', '1000', ...extra],
    {
      PDFRENDER_BROWSER_HANG_TIMEOUT: '2s',
    },
  );
  killLater(server.child.pid);
  return server;
}

async function renderPdf(url: string, htmlContent: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
    body: JSON.stringify({ htmlContent }),
  });
  if (response.status !== 200) return { status: response.status, text: await response.text() };
  return {
    status: 200,
    text: (await readPdf(new Uint8Array(await response.arrayBuffer()))).pages.map((page) => page.text).join('\n'),
  };
}

/** The one browser `server` runs (the process group leader: puppeteer starts it detached). */
async function browserOf(server: ServeProcess): Promise<{ pid: number; profile: string }> {
  const found = await onlyBrowserOf(server.child.pid!);
  expect(found).toBeDefined();
  killLater(undefined, found!.profile);
  return found!;
}

describe('a hung browser', () => {
  it('is killed and replaced: the render in flight and one sent while it is stopped both succeed; /readyz answers meanwhile', async () => {
    // The in-flight document's image comes from a loopback gate (the one host it may reach).
    const gate = await startGate();
    const server = await serve(['--allow-host', '127.0.0.1', '--metrics']);
    let done = false;
    try {
      expect((await renderPdf(server.url, '<p>warm</p>')).status).toBe(200);
      const old = await browserOf(server);

      // One render in flight on the browser when it stops: it waits on the gate, which opens only
      // once the browser is stopped (the retry on the new browser then loads it at once).
      const inFlight = renderPdf(server.url, `<img src="${gate.url}"><p>in flight</p>`);
      await gate.reached(1);
      process.kill(-old.pid, 'SIGSTOP');
      // A signal lands a moment after it is sent.
      await until(() => stateOf(old.pid) === 'T', 'the browser to stop', 5_000);
      gate.open();

      // /readyz keeps answering, and turns to not ready (browser false) while nothing answers.
      const answers: Array<{ status: number; browser: boolean; oldState: string }> = [];
      const sentWhileStopped = renderPdf(server.url, '<p>sent while stopped</p>');
      const watching = (async () => {
        while (!done) {
          const response = await fetch(`${server.url}/readyz`);
          const body = (await response.json()) as { checks: { browser: boolean } };
          answers.push({ status: response.status, browser: body.checks.browser, oldState: stateOf(old.pid) });
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      watching.catch(() => undefined); // a failed test stops the server under it
      const [first, second] = await Promise.all([inFlight, sentWhileStopped]);
      // Both rendered while the old browser was never continued: a new browser rendered them.
      expect(first).toEqual({ status: 200, text: expect.stringContaining('in flight') });
      expect(second).toEqual({ status: 200, text: expect.stringContaining('sent while stopped') });
      done = true;
      await watching;

      expect(answers.some((answer) => answer.status === 503 && !answer.browser && answer.oldState === 'T')).toBe(true);
      // The stopped browser was killed, every process of it, and a new one took its place.
      expect(await remainingAfter(old.profile, 5_000)).toEqual([]);
      const replacement = await browserOf(server);
      expect(replacement.pid).not.toBe(old.pid);
      const ready = await until(
        async () => {
          const response = await fetch(`${server.url}/readyz`);
          return response.status === 200 && response;
        },
        'ready again',
        10_000,
      );
      expect(await ready.json()).toEqual({
        status: 'ready',
        checks: { browser: true, database: true, storage: true, accepting: true },
      });
      // The operator is told, and /metrics counts it as a hang (the kill is no crash).
      expect(server.stderr()).toMatch(
        new RegExp(`WARN the browser \\(pid ${old.pid}\\) did not answer for 2 s: killed it`),
      );
      const metrics = await (await fetch(`${server.url}/metrics`)).text();
      for (const [event, count] of [
        ['launched', 2],
        ['hung', 1],
        ['crashed', 0],
      ] as const)
        expect(metrics).toContain(`pdfrender_browser_events_total{event="${event}"} ${count}\n`);
    } finally {
      done = true;
      gate.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 90_000);

  it('is not a long document: a renderer busy for longer than the hang timeout keeps its browser', async () => {
    const server = await serve();
    try {
      expect((await renderPdf(server.url, '<p>warm</p>')).status).toBe(200);
      const before = await browserOf(server);
      // Busy for 1.5 hang timeouts: a ping goes out every 400 ms, so were the browser held up by its
      // renderer, one ping would go unanswered for over 2.6 s and the watchdog would kill it. It answers.
      expect(await renderPdf(server.url, `${busyScript(3_000)}<p>slow but fine</p>`)).toEqual({
        status: 200,
        text: expect.stringContaining('slow but fine'),
      });
      expect((await browserOf(server)).pid).toBe(before.pid);
      expect(server.stderr()).not.toMatch(/did not answer/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 90_000);

  it('has a timeout that is a serve setting with an environment twin, and a render option', () => {
    expect(loadServeConfig({}, {}, '/srv').browserHangTimeout).toBe(5_000);
    expect(loadServeConfig({}, { PDFRENDER_BROWSER_HANG_TIMEOUT: '2s' }, '/srv').browserHangTimeout).toBe(2_000);
    expect(
      loadServeConfig({ browserHangTimeout: '500ms' }, { PDFRENDER_BROWSER_HANG_TIMEOUT: '2s' }, '/srv')
        .browserHangTimeout,
    ).toBe(500);
    expect(() => loadServeConfig({}, { PDFRENDER_BROWSER_HANG_TIMEOUT: 'soon' }, '/srv')).toThrow(
      /--browser-hang-timeout \(PDFRENDER_BROWSER_HANG_TIMEOUT\)/,
    );
    expect(parseRunOptions({}).browserHangTimeout).toBe(5_000);
    expect(parseRunOptions({ browserHangTimeout: '3s' }).browserHangTimeout).toBe(3_000);
    expect(() => parseRunOptions({ browserHangTimeout: '0' })).toThrow(/--browser-hang-timeout/);
  });
});
