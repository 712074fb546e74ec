/**
 * Pages shared fairly between callers (issue 27 §2). One caller whose documents hold every page
 * (a long waitDelay, here a gate the test holds shut) no longer keeps another caller's render
 * waiting: a page beyond the pool's size is kept for a caller holding none; the next free page goes
 * to the caller holding fewest, not to whoever asked first; and an urgent render that cannot get a
 * page within the engine's bound is refused with 503 BROWSER_BUSY instead of being held. Real
 * Chromium; the order of answers is asserted, never a wall-clock time.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { isPdfRenderError } from '../src/errors.js';
import { createEngine, type Engine, type RenderOptions } from '../src/engine/engine.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { startServer } from './support/server.js';

const engines: Engine[] = [];
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
});

/** An engine of `concurrency` pages that may load from loopback (the gate). */
function engineOf(concurrency: number, extra: { pageWaitMs?: number; maxPagesPerCaller?: number } = {}): Engine {
  const engine = createEngine({ executablePath, concurrency, network: { network: 'all', allowHosts: [] }, ...extra });
  engines.push(engine);
  return engine;
}

/** Render `html` for `caller`, noting in `order` when it finished (or how it failed). */
function renderFor(engine: Engine, html: string, options: RenderOptions, order: string[], label: string) {
  return engine.render(parseRenderRequest({ htmlContent: html }), options).then(
    async (result) => {
      order.push(label);
      return (await readPdf(result.pdf)).pages.map((page) => page.text).join(' ');
    },
    (error: unknown) => {
      order.push(`${label}:${isPdfRenderError(error) ? error.code : String(error)}`);
      throw error;
    },
  );
}

describe('pages between callers', () => {
  it("answers another caller's small render while one caller's documents hold every page", async () => {
    const engine = engineOf(2);
    const gate = await startGate();
    const order: string[] = [];
    try {
      // x holds both pages, with two more of its renders waiting behind them.
      const held = [1, 2, 3, 4].map((n) =>
        renderFor(engine, gate.document(), { caller: 'x' }, order, `x${n}`).catch(() => ''),
      );
      await gate.reached(2);
      const text = await renderFor(engine, '<p>one paragraph of y</p>', { caller: 'y' }, order, 'y');
      expect(text).toContain('one paragraph of y');
      // y finished while every one of x's renders was still waiting on the gate.
      expect(order).toEqual(['y']);
      gate.open();
      await Promise.all(held);
      expect(order.slice(1).sort()).toEqual(['x1', 'x2', 'x3', 'x4']);
    } finally {
      gate.close();
    }
  });

  it('gives the next free page in turn: to a caller that has not had one before the caller that just had its turn', async () => {
    const engine = engineOf(1, { maxPagesPerCaller: 1 });
    const gateX = await startGate();
    const gateY = await startGate();
    const order: string[] = [];
    try {
      const first = renderFor(engine, gateX.document(), { caller: 'x' }, order, 'x1');
      await gateX.reached(1);
      // The extra place goes to y (it holds none); x's second render waits, asked for before z's.
      const yHeld = renderFor(engine, gateY.document(), { caller: 'y' }, order, 'y1');
      await gateY.reached(1);
      const xSecond = renderFor(engine, '<p>x2</p>', { caller: 'x' }, order, 'x2');
      const z = renderFor(engine, '<p>z</p>', { caller: 'z' }, order, 'z');
      gateX.open();
      await Promise.all([first, xSecond, z]);
      // x1 done, its place went to z (holding none), not to x (which asked first but already had its turn).
      expect(order.indexOf('z')).toBeLessThan(order.indexOf('x2'));
      gateY.open();
      await yHeld;
    } finally {
      gateX.close();
      gateY.close();
    }
  });

  it('refuses an urgent render that waited its bound for a page with 503 BROWSER_BUSY and Retry-After, and the others finish', async () => {
    const engine = engineOf(1, { pageWaitMs: 1_000 });
    const gate = await startGate();
    const order: string[] = [];
    try {
      const held = [renderFor(engine, gate.document(), { caller: 'x' }, order, 'x')];
      await gate.reached(1);
      held.push(renderFor(engine, gate.document(), { caller: 'y' }, order, 'y'));
      await gate.reached(2);
      const refused = await engine
        .render(parseRenderRequest({ htmlContent: '<p>z</p>' }), { caller: 'z' })
        .catch((e: unknown) => e);
      expect(isPdfRenderError(refused, 'BROWSER_BUSY')).toBe(true);
      expect(refused).toMatchObject({ retryAfter: 5 });
      gate.open();
      await Promise.all(held);
      expect(order.sort()).toEqual(['x', 'y']);
    } finally {
      gate.close();
    }
  });
});

/** POST a render-sync `body` to `url` from the loopback address `from` (two addresses are two callers); its status. */
function renderSyncFrom(url: string, from: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/api/pdfs/render-sync`,
      { method: 'POST', localAddress: from, headers: { 'Content-Type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('render-sync between two client addresses', () => {
  it("answers the second address's render while the first's documents hold every page", async () => {
    const server = await startServer({ concurrency: 2, allowPrivateNetwork: true });
    const gate = await startGate({ trickleMs: 1_000 });
    const order: string[] = [];
    try {
      const first = [1, 2, 3].map((n) =>
        renderSyncFrom(server.url, '127.0.0.1', { htmlContent: gate.document() }).then((status) => {
          order.push(`first${n}:${status}`);
        }),
      );
      await gate.reached(2);
      expect(await renderSyncFrom(server.url, '127.0.0.2', { htmlContent: '<p>second caller</p>' })).toBe(200);
      expect(order).toEqual([]);
      gate.open();
      await Promise.all(first);
      expect(order.sort()).toEqual(['first1:200', 'first2:200', 'first3:200']);
    } finally {
      gate.close();
      await server.close();
    }
  });
});
