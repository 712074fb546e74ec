/**
 * The memory bound on renders (issue 31 §1), against real Chromium: a long table is stopped past
 * --max-render-memory with a message naming the size, other callers' renders go on meanwhile, and
 * two large documents at once never hold more than the limit together. Each render stays well under
 * 1.5 GB: the tables would grow to about 0.5 and 1 GB unbounded, and are stopped at 300 to 450 MB.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { asRenderError } from '../src/engine/render-error.js';
import { isPdfRenderError } from '../src/errors.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';
import { startServer } from './support/server.js';
import { removeTempDirs } from './support/files.js';

afterAll(removeTempDirs);

const mb = 2 ** 20;

/** One long table of `rows` rows: about 43 rows a page, and its renderer grows fast with it. */
function longTable(rows: number): string {
  const body = Array.from(
    { length: rows },
    (_, i) => `<tr><td>row ${i} of the long table</td><td>${i * 7}</td><td>${(i % 97) / 3}</td></tr>`,
  ).join('');
  return `<table><thead><tr><th>item</th><th>value</th><th>share</th></tr></thead><tbody>${body}</tbody></table>`;
}

const children = (pid: number): number[] => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'latin1').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
};
const tree = (pid: number): number[] => [pid, ...children(pid).flatMap(tree)];

/** The test's own reading of the renderers under this process: what each holds (resident anonymous and shared memory, as the limit counts it). */
function renderers(): { pid: number; bytes: number }[] {
  return tree(process.pid).flatMap((pid) => {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=renderer')) return [];
      const status = readFileSync(`/proc/${pid}/status`, 'latin1');
      const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
      return [{ pid, bytes: (kb('RssAnon') + kb('RssShmem')) * 1024 }];
    } catch {
      return []; // gone meanwhile
    }
  });
}

/** The highest sum of the renderers' memory, read every 50 ms until stopped. */
function sampleRenderers(): { stop(): number } {
  let peak = 0;
  const timer = setInterval(() => {
    peak = Math.max(
      peak,
      renderers().reduce((sum, renderer) => sum + renderer.bytes, 0),
    );
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      return peak;
    },
  };
}

describe('--max-render-memory', () => {
  it('stops a document past the limit with a message naming the size, and the server renders another caller meanwhile', async () => {
    const server = await startServer({
      maxRenderMemory: '300MB',
      apiKeys: ['key-large', 'key-small'],
      rateLimit: 10_000,
    });
    try {
      const post = (key: string, htmlContent: string) =>
        fetch(`${server.url}/api/pdfs/render-sync`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/pdf' },
          body: JSON.stringify({ htmlContent }),
        });
      let largeDone = false;
      const large = post('key-large', longTable(8000)).then(async (response) => {
        largeDone = true;
        return { status: response.status, body: (await response.json()) as { outcome: string; message: string } };
      });
      // The other caller's small documents render, one after another, while the large one grows.
      const small: number[] = [];
      while (!largeDone) {
        const response = await post('key-small', `<p>small document ${small.length}</p>`);
        expect(response.status).toBe(200);
        const pdf = await readPdf(new Uint8Array(await response.arrayBuffer()));
        expect(pdf.pages[0]!.text).toContain(`small document ${small.length}`);
        small.push(response.status);
      }
      const { status, body } = await large;
      expect(status).toBe(400);
      expect(body.outcome).toBe('RENDER_PDF_FAILED');
      expect(body.message).toMatch(
        /^the document needed more memory than the limit allows to lay out and print \(stopped at \d+ MB; the limit is --max-render-memory 300MB, for the documents rendering at once together\): split long tables into several, or raise the limit$/,
      );
      expect(small.length).toBeGreaterThan(0);
      // And the large caller's next small document renders.
      expect((await post('key-large', '<p>after</p>')).status).toBe(200);
    } finally {
      await server.close();
    }
  }, 120_000);

  it('keeps two large documents at once within the limit: the largest is refused to try again, the other renders', async () => {
    const limit = 450 * mb;
    let stops = 0;
    const engine = createEngine({
      executablePath,
      concurrency: 2,
      maxRenderMemory: limit,
      observe: { browser: () => undefined, memoryStop: () => (stops += 1) },
    });
    try {
      await engine.start();
      const sampler = sampleRenderers();
      // Each alone fits (about 300 MB); together they would not.
      const outcomes = await Promise.all(
        [0, 1].map((n) => engine.render({ htmlContent: longTable(4000 + n * 200) }).catch((error: unknown) => error)),
      );
      const peak = sampler.stop();
      const refused = outcomes.filter((outcome) => isPdfRenderError(outcome, 'BROWSER_BUSY'));
      const rendered = outcomes.filter((outcome) => !(outcome instanceof Error));
      expect(refused).toHaveLength(1);
      expect(rendered).toHaveLength(1);
      // Told once, for /metrics' pdfrender_memory_stops_total.
      expect(stops).toBe(1);
      const busy = refused[0] as Error & { retryAfter?: number };
      expect(busy.message).toMatch(
        /^other large documents were using the memory: the documents rendering together needed \d+ MB, past 450 MB \(the limit is maxRenderMemory 450MB\); this one, the largest at \d+ MB, was stopped; try again shortly$/,
      );
      expect(busy.retryAfter).toBeGreaterThan(0);
      // One 200 ms sample's growth of two renderers past the limit at most (they grow about 150 MB/s each here).
      expect(peak).toBeLessThan(limit + 100 * mb);
      // Tried again alone, the refused one renders.
      const again = await engine.render({ htmlContent: longTable(4200) });
      expect(again.pages).toBeGreaterThan(90);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('renders both with waitForMemory (the CLI): the one refused waits for the other to end, then renders', async () => {
    const limit = 450 * mb;
    const engine = createEngine({ executablePath, concurrency: 2, maxRenderMemory: limit, waitForMemory: true });
    try {
      await engine.start();
      const sampler = sampleRenderers();
      const results = await Promise.all([0, 1].map((n) => engine.render({ htmlContent: longTable(4000 + n * 200) })));
      const peak = sampler.stop();
      expect(results.map((result) => result.pages > 90)).toEqual([true, true]);
      expect(peak).toBeLessThan(limit + 100 * mb);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it("leaves no long document's layout in an idle page's renderer, where it would count against the limit", async () => {
    // A quarter of the limit is 150 MB: the table's renderer holds more, so its page is not kept.
    const engine = createEngine({ executablePath, concurrency: 1, maxRenderMemory: 600 * mb });
    try {
      expect((await engine.render({ htmlContent: longTable(4000) })).pages).toBeGreaterThan(50);
      // The page goes back to the pool (or is closed) once its reset is done, after the answer.
      let idle = Infinity;
      for (let wait = 0; wait < 100 && idle >= 100 * mb; wait += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        idle = renderers().reduce((sum, renderer) => sum + renderer.bytes, 0);
      }
      // Reused after the reset, its renderer kept about 225 MB of the table's layout.
      expect(idle).toBeLessThan(100 * mb);
      expect((await engine.render({ htmlContent: '<p>next</p>' })).pages).toBe(1);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('closes resting pages before it stops a render: what they kept of earlier documents is no reason to stop one', async () => {
    // Two tables of about 45 pages each leave their pages resting with over 100 MB each (under 50
    // pages, so kept); a 70-page table alone fits the limit but not beside them.
    const engine = createEngine({ executablePath, concurrency: 2, maxRenderMemory: 300 * mb });
    try {
      await Promise.all([
        engine.render({ htmlContent: longTable(2000) }),
        engine.render({ htmlContent: longTable(2000) }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 1000)); // their resets done, the pages resting
      const { pages } = await engine.render({ htmlContent: longTable(3000), tagged: false });
      expect(pages).toBeGreaterThan(60);
    } finally {
      await engine.close();
    }
  }, 120_000);

  it('says why when the renderer stops in the middle of the print, which Chromium answers with a bare "Printing failed"', async () => {
    const engine = createEngine({ executablePath, concurrency: 1 });
    try {
      await engine.start();
      // Killed from outside (as the kernel's OOM killer would) once it holds 200 MB laying the table out.
      const killer = setInterval(() => {
        const large = renderers().find((renderer) => renderer.bytes > 200 * mb);
        if (large) {
          clearInterval(killer);
          process.kill(large.pid, 'SIGKILL');
        }
      }, 20);
      const error = await engine.render({ htmlContent: longTable(8000) }).then(
        () => expect.unreachable('rendered'),
        (failure: unknown) => failure as Error,
      );
      clearInterval(killer);
      expect(error.message).not.toMatch(
        /^(Protocol error.*)?Printing failed$|^Chromium could not render the document$/,
      );
      expect(error.message).toMatch(/renderer (crashed|stopped in the middle of the print)/);
      expect((await engine.render({ htmlContent: '<p>next</p>' })).pages).toBe(1);
    } finally {
      await engine.close();
    }
  }, 60_000);

  it('never lets Chromium\'s bare "Printing failed" reach a caller', () => {
    for (const detail of ['Protocol error (Page.printToPDF): Printing failed', 'Printing failed']) {
      const error = asRenderError(new Error(detail));
      expect(error.code).toBe('RENDER_PDF_FAILED');
      expect(error.message).not.toBe('Printing failed');
      expect(error.message).toMatch(/too large to print in one piece.*split it into several documents/);
    }
  });
});
