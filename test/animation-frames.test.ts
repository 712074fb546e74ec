/**
 * Pooled pages run no screen frames of their own (src/engine/pages/frame-gate.ts): what a document's
 * script waits a frame for must still reach its PDF, and one document stuck in a frame must neither
 * hold up nor crash another caller's.
 */
import type { CDPSession } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { FrameGate } from '../src/engine/pages/frame-gate.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { redPng } from './support/files.js';
import { readPaint, readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 4, timeoutMs: 20_000 });
});

afterAll(async () => {
  await engine.close();
});

async function textOf(htmlContent: string, timeoutMs?: number): Promise<string> {
  const result = await engine.render(parseRenderRequest({ htmlContent }), { timeoutMs });
  return (await readPdf(result.pdf)).pages.map((page) => page.text).join(' ');
}

/** A document that writes `label` only from a requestAnimationFrame callback, as chart libraries draw. */
const drawnInFrame = (label: string) =>
  `<p id="out">not drawn</p><script>requestAnimationFrame(() => { document.getElementById('out').textContent = ${JSON.stringify(label)}; });</script>`;

describe('animation frames', () => {
  it('runs requestAnimationFrame callbacks and observers before printing', async () => {
    expect(await textOf(drawnInFrame('drawn in a frame'))).toContain('drawn in a frame');
    const observed = `<p id="seen">not observed</p><script>
      new IntersectionObserver((entries) => { document.getElementById('seen').textContent = 'observed ' + entries.length; }).observe(document.getElementById('seen'));
    </script>`;
    expect(await textOf(observed)).toContain('observed 1');
  });

  it('gives every document its frame when many ask at once', async () => {
    // Two frames in flight at once crash the shared display compositor: all of these must print their own.
    const labels = Array.from({ length: 24 }, (_, i) => `frame document ${i}`);
    const texts = await Promise.all(labels.map((label) => textOf(drawnInFrame(label))));
    texts.forEach((text, i) => expect(text).toContain(labels[i]));
  });

  it('does not let a document stuck in a frame hold up another caller', async () => {
    // A deadline of 3 s: ten times what the three renders after it take on a busy machine.
    const stuck = textOf('<p>stuck</p><script>requestAnimationFrame(() => { for (;;) {} });</script>', 3_000);
    let stuckSettled = false;
    const stuckOutcome = stuck.then(
      () => 'printed',
      (error: Error) => error.message,
    );
    void stuckOutcome.then(() => (stuckSettled = true));
    // Every frame after the stuck one, on other pages, while it is still stuck.
    for (let i = 0; i < 3; i += 1)
      expect(await textOf(drawnInFrame(`after the stuck one ${i}`))).toContain(`after the stuck one ${i}`);
    expect(stuckSettled).toBe(false);
    expect(await stuckOutcome).toMatch(/did not finish rendering within the 3 s deadline/);
    expect(await textOf(drawnInFrame('after the stuck page was closed'))).toContain('after the stuck page was closed');
  });

  it('prints a document without script as it did with screen frames: styles laid out, lazy images in and below the viewport', async () => {
    // No frame ever runs for it: layout, and the loading of lazy images, must come from printing.
    const image = `data:image/png;base64,${Buffer.from(redPng).toString('base64')}`;
    const html = `<style>p::after { content: " (styled)"; }</style><p>plain</p><img loading="lazy" src="${image}" width="20" height="20"><div style="height: 3000px"></div><img loading="lazy" src="${image}" width="20" height="20">`;
    const result = await engine.render(parseRenderRequest({ htmlContent: html }));
    const pdf = await readPdf(result.pdf);
    expect(pdf.pages[0]!.text).toContain('plain (styled)');
    let images = 0;
    for (let page = 1; page <= pdf.pages.length; page += 1) images += (await readPaint(result.pdf, page)).images;
    expect(images).toBe(2);
  });
});

describe('the frame gate', () => {
  // Two frames in flight at once crash the headless shell's shared display compositor, which a
  // render cannot provoke on demand; a client that records what is in flight shows the order.
  it('lets one frame at a time through, and no more than its hold past a frame that never answers', async () => {
    const gate = new FrameGate();
    let inFlight = 0;
    let most = 0;
    const answers: Array<() => void> = [];
    const client = {
      send: () => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        return new Promise<void>((resolve) => answers.push(() => ((inFlight -= 1), resolve())));
      },
    } as unknown as CDPSession;
    const first = gate.frame(client);
    const second = gate.frame(client);
    await until(() => answers.length === 1, 'the first frame');
    answers[0]!();
    await first;
    await until(() => answers.length === 2, 'the second frame');
    answers[1]!();
    await second;
    expect(most).toBe(1); // the second was sent only once the first had answered
    // A frame that never answers lets the next one through after its hold.
    void gate.frame(client);
    const afterStuck = gate.frame(client);
    await until(() => answers.length === 4, 'the frame after a stuck one', 5_000);
    answers[3]!();
    await afterStuck;
  });
});
