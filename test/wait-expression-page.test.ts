/**
 * waitForExpression in real Chromium (issue 27 §3): only a boolean, or a bounded account of a throw,
 * crosses DevTools into pdfrender, whatever the expression's value, whatever the document redefines,
 * whatever it throws; and the expressions documents use still wait as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { parseRenderRequest, type RenderRequestInput } from '../src/request.js';
import { maxThrownChars } from '../src/wait-expression.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';

/** 256 M characters: one value of the size. */
const big = "'x'.repeat(2 ** 28)";
/** Growth of this process's resident memory a render may cause; one 256 MB value by value is far more. */
const maxGrowthBytes = 96 * 1024 * 1024;

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000, network: { network: 'none' } });
});
afterAll(() => engine.close());

// Renders `request` and returns the error or the PDF's text, with how much this process's RSS grew.
async function render(request: RenderRequestInput, options: { timeoutMs?: number } = {}) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const outcome: { text?: string; error?: Error } = await engine.render(parseRenderRequest(request), options).then(
      async (result) => ({ text: (await readPdf(result.pdf)).pages.map((page) => page.text).join('\n') }),
      (error: unknown) => ({ error: error as Error }),
    );
    peak = Math.max(peak, process.memoryUsage().rss);
    return { ...outcome, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

describe('waitForExpression in the page', () => {
  it('still waits for the expressions documents use', async () => {
    const late =
      '<p>Here</p><script>setTimeout(() => { window.ready = true; document.body.append("Late"); }, 300)</script>';
    expect((await render({ htmlContent: late, waitForExpression: 'window.ready' })).text).toMatch(/Here\s*Late/);
    expect(
      (await render({ htmlContent: late, waitForExpression: "document.fonts.status === 'loaded' && window.ready" }))
        .text,
    ).toMatch(/Late/);
  });

  it('hands back only a boolean when the value is a 256 MB string', async () => {
    const outcome = await render({
      htmlContent: `<p>Big</p><script>window.big = ${big};</script>`,
      waitForExpression: 'window.big',
    });
    expect(outcome.text).toBe('Big');
    expect(outcome.growth).toBeLessThan(maxGrowthBytes);
  });

  it('hands back only a boolean when the document redefines Boolean to return 256 MB', async () => {
    // The old wrapper called the page's Boolean: its 256 MB answer came back by value at every poll.
    const outcome = await render(
      {
        htmlContent: `<p>Redefined</p><script>const big = ${big}; window.Boolean = () => big; window.ready = true;</script>`,
        waitForExpression: 'window.ready',
      },
      { timeoutMs: 8000 },
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.text).toBe('Redefined');
    expect(outcome.growth).toBeLessThan(maxGrowthBytes);
  });

  it('bounds what a throw brings back: its name and the start of its message, in the deadline error', async () => {
    const outcome = await render(
      {
        htmlContent: `<p>Throws</p><script>window.huge = ${big};</script>`,
        waitForExpression: '(() => { throw new RangeError(window.huge) })()',
      },
      { timeoutMs: 1500 },
    );
    expect(outcome.error).toMatchObject({
      code: 'RENDER_PDF_FAILED',
      message: expect.stringContaining(
        `(to be truthy; it last threw "RangeError: ${'x'.repeat(maxThrownChars.message)}")`,
      ),
    });
    expect(outcome.error!.message.length).toBeLessThan(1000);
    expect(outcome.growth).toBeLessThan(maxGrowthBytes);
  });

  it('bounds a thrown string, and a throw whose message is a getter that throws', async () => {
    const thrown = await render(
      {
        htmlContent: `<p>Throws</p><script>window.huge = ${big};</script>`,
        waitForExpression: '(() => { throw window.huge })()',
      },
      { timeoutMs: 1500 },
    );
    expect(thrown.error?.message).toContain(`it last threw "${'x'.repeat(maxThrownChars.message)}")`);
    expect(thrown.growth).toBeLessThan(maxGrowthBytes);
    const getter = await render(
      {
        htmlContent: '<p>Throws</p>',
        waitForExpression: '(() => { throw { get name() { throw 1 }, get message() { throw 2 } } })()',
      },
      { timeoutMs: 1500 },
    );
    expect(getter.error?.message).toContain('it last threw "an exception")');
  });
});
