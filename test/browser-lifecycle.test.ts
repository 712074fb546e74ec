/**
 * The browser's life: recycled after a number of renders without failing any, and never left
 * behind when pdfrender dies (SIGKILL of `serve` or of `render` mid-batch), with a restarted
 * server clearing what a killed one left (a browser too stopped to notice, its profile folder).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseRunOptions } from '../src/cli/run-options.js';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine } from '../src/engine/engine.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import {
  browsersOf,
  killLater,
  killQuietly,
  killLeftovers,
  onlyBrowserOf,
  processesUsing,
  remainingAfter,
} from './support/chromium-processes.js';
import { bin, startServe } from './support/cli.js';
import { busyScript, removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

afterAll(async () => {
  killLeftovers();
  await removeTempDirs();
});

/**
 * Start `pdfrender serve` on `dataDir`, with a temp folder of its own; killed after the tests if a
 * failure left it running. Any run sweeps the temp folder of profiles whose owner is gone, so in the
 * shared one a CLI run of another test file could remove a killed server's profile before the test
 * looks for it (it did, once in CI).
 */
async function serve(dataDir: string) {
  const tmp = join(dataDir, 'tmp');
  await mkdir(tmp, { recursive: true });
  // As root the browser runs as its own user, which must reach its profile in there.
  await Promise.all([chmod(dataDir, 0o755), chmod(tmp, 0o755)]);
  // --allow-host: documents may reach the test's loopback gate.
  const server = await startServe(['--data-dir', dataDir, '--concurrency', '2', '--allow-host', '127.0.0.1'], {
    TMPDIR: tmp,
  });
  killLater(server.child.pid);
  return server;
}

async function renderSync(url: string, htmlContent: string): Promise<Response> {
  return fetch(`${url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ htmlContent }),
  });
}

/** The one browser `pid` runs, once it has started. */
async function browserOf(pid: number): Promise<{ browser: number; profile: string }> {
  const found = await onlyBrowserOf(pid);
  expect(found).toBeDefined();
  killLater(undefined, found!.profile);
  return { browser: found!.pid, profile: found!.profile };
}

describe('browser recycling', () => {
  it('launches a fresh browser every 3 renders, fails none, and closes the old ones; tells its observer', async () => {
    const events: string[] = [];
    const engine = createEngine({
      executablePath,
      concurrency: 2,
      browserRecycleAfter: 3,
      observe: { browser: (event) => events.push(event), memoryStop: () => events.push('memory stop') },
    });
    const seen = new Map<number, string>();
    const sample = () => browsersOf(process.pid).forEach((profile, pid) => seen.set(pid, profile));
    const sampler = setInterval(sample, 10);
    try {
      const render = async (i: number, slow = false) => {
        // A slow one holds its page for 400 ms after loading, printing nothing till then.
        const result = await engine.render(
          parseRenderRequest({ htmlContent: `<p>Document ${i}</p>`, ...(slow ? { waitDelay: 400 } : {}) }),
        );
        return (await readPdf(result.pdf)).pages[0]!.text;
      };
      const texts = [await render(0), await render(1)];
      // Document 2 is the first browser's last, and slow: documents 3 to 5 start the second browser
      // while it is still printing on the first.
      texts.push(...(await Promise.all([render(2, true), render(3), render(4), render(5)])));
      texts.push(...(await Promise.all([6, 7, 8, 9].map((i) => render(i, i === 8)))));
      texts.forEach((text, i) => expect(text).toContain(`Document ${i}`));
      sample();

      // Ten renders, three per browser: four launches, each its own Chromium.
      expect(seen.size).toBe(4);
      // The last retired browser closes once its pages are released, a moment after its last render.
      const live = await until(
        () => {
          const found = browsersOf(process.pid);
          return found.size <= 1 && found;
        },
        'the retired browsers to close',
        5_000,
      );
      expect(live.size).toBe(1);
      // What /metrics counts: four launches, three recycles, and no crash for a browser closed on purpose.
      const count = (event: string) => events.filter((each) => each === event).length;
      expect([count('launched'), count('recycled'), count('crashed'), count('hung')]).toEqual([4, 3, 0, 0]);
      const [current] = [...live.keys()];
      for (const [pid, profile] of seen) {
        if (pid === current) continue;
        expect(await remainingAfter(profile, 5_000)).toEqual([]);
        // Its profile folder is removed just after its processes are gone.
        await until(() => !existsSync(profile), 'its profile folder to be removed', 5_000);
      }
      // A browser that dies on its own (its whole process group killed) is a crash, and the next
      // render launches another; closing the engine then is no crash.
      process.kill(-current!, 'SIGKILL');
      await until(() => count('crashed') === 1, 'the crash to be told', 5_000);
      expect(await render(10)).toContain('Document 10');
      expect([count('launched'), count('crashed')]).toEqual([5, 1]);
      const [last] = [...browsersOf(process.pid).values()];
      clearInterval(sampler);
      await engine.close();
      expect(await remainingAfter(last!, 5_000)).toEqual([]);
      expect(count('crashed')).toBe(1);
    } finally {
      clearInterval(sampler);
      for (const profile of seen.values()) processesUsing(profile).forEach(killQuietly);
    }
  }, 120_000);

  it('is a serve setting with an environment twin, and a render option', () => {
    expect(loadServeConfig({}, {}, '/srv').browserRecycleAfter).toBe(2000);
    expect(loadServeConfig({}, { PDFRENDER_BROWSER_RECYCLE_AFTER: '50' }, '/srv').browserRecycleAfter).toBe(50);
    expect(() => loadServeConfig({ browserRecycleAfter: '0' }, {}, '/srv')).toThrow(
      /--browser-recycle-after \(PDFRENDER_BROWSER_RECYCLE_AFTER\)/,
    );
    expect(parseRunOptions({}).browserRecycleAfter).toBe(2000);
    expect(parseRunOptions({ browserRecycleAfter: '7' }).browserRecycleAfter).toBe(7);
    expect(() => parseRunOptions({ browserRecycleAfter: 'x' })).toThrow(/--browser-recycle-after/);
  });
});

describe('no browser left behind', () => {
  it('a serve killed with SIGKILL mid-render takes its browser with it; the restart removes its profile', async () => {
    const dataDir = await tempDir();
    const first = await serve(dataDir);
    expect((await renderSync(first.url, '<p>warm</p>')).status).toBe(200);
    const { browser, profile } = await browserOf(first.child.pid!);
    // The data dir knows the browser, for the next run.
    const recorded = JSON.parse(await readFile(join(dataDir, 'browsers', `${browser}.json`), 'utf8'));
    expect(recorded).toEqual({ owner: first.child.pid, pid: browser, profileDir: profile });
    // Two renders in flight, their renderers busy in a script, when the kill lands: each pings a
    // loopback gate (never opened) as it starts, then keeps its renderer busy.
    const gate = await startGate();
    const inFlight = [0, 1].map(() =>
      renderSync(first.url, `<img src="${gate.url}">${busyScript(5_000)}`).catch(() => undefined),
    );
    await gate.reached(2);
    // The browser and at least one renderer (the headless shell runs fewer helper processes than chromium).
    expect(processesUsing(profile).length).toBeGreaterThan(1);
    first.child.kill('SIGKILL');
    await first.exited;
    await Promise.all(inFlight);
    gate.close();
    expect(await remainingAfter(profile, 5_000)).toEqual([]);
    // The killed server could not delete its profile; the next one does, before its own browser starts.
    expect(existsSync(profile)).toBe(true);

    const second = await serve(dataDir);
    try {
      const next = await browserOf(second.child.pid!);
      expect(existsSync(profile)).toBe(false);
      expect(readdirSync(join(dataDir, 'browsers'))).toEqual([`${next.browser}.json`]);
      second.child.kill('SIGTERM');
      await second.exited;
      expect(processesUsing(next.profile)).toEqual([]);
      expect(readdirSync(join(dataDir, 'browsers'))).toEqual([]);
    } finally {
      second.child.kill('SIGKILL');
    }
  }, 60_000);

  it('a restarted serve kills the browser a killed one left because it could not notice (stopped)', async () => {
    const dataDir = await tempDir();
    const first = await serve(dataDir);
    expect((await renderSync(first.url, '<p>warm</p>')).status).toBe(200);
    const { browser, profile } = await browserOf(first.child.pid!);
    // A stopped browser never reads the end of its pipe: the one case the pipe cannot cover.
    process.kill(-browser, 'SIGSTOP');
    first.child.kill('SIGKILL');
    await first.exited;
    // Its server is gone and it is still there: a stopped process cannot act on the closed pipe.
    expect(processesUsing(profile)).toContain(browser);

    const second = await serve(dataDir);
    try {
      await browserOf(second.child.pid!);
      expect(await remainingAfter(profile, 5_000)).toEqual([]);
      expect(existsSync(profile)).toBe(false);
      expect((await renderSync(second.url, '<p>after</p>')).status).toBe(200);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);

  it('a render killed with SIGKILL mid-batch leaves no Chromium running', async () => {
    const dir = await tempDir();
    const inputs = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const file = join(dir, `doc-${i}.html`);
        await writeFile(file, `<p>document ${i}</p>`);
        return file;
      }),
    );
    const outDir = join(dir, 'out');
    // Each document holds its page for 300 ms (--wait-delay), so the kill lands mid-batch.
    const child = spawn(
      process.execPath,
      [bin, 'render', ...inputs, '--out-dir', outDir, '--concurrency', '2', '--wait-delay', '300', '-q'],
      {
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    killLater(child.pid);
    const exited = new Promise((r) => child.on('close', r));
    const { profile } = await browserOf(child.pid!);
    // Mid-batch: some documents written, most still to come.
    await until(
      () => existsSync(outDir) && readdirSync(outDir).some((name) => name.endsWith('.pdf')),
      'a first PDF written',
    );
    expect(readdirSync(outDir).filter((name) => name.endsWith('.pdf')).length).toBeLessThan(20);
    child.kill('SIGKILL');
    await exited;
    expect(await remainingAfter(profile, 5_000)).toEqual([]);
    // The CLI keeps no data dir, so its profile folder stays behind until the next run removes it
    // (cli-faults.test.ts); tidy up after the test.
    await rm(profile, { recursive: true, force: true });
  }, 60_000);
});
