/**
 * No request may freeze the event loop: while the server works on a request built to make a scan
 * of caller text (its header template, or the PDF that holds its title) as slow as possible,
 * /healthz keeps answering. The server runs in this process, so a frozen loop delays the health
 * checks by the whole freeze (minutes before the scans were made linear; milliseconds now). There
 * is no bound in seconds: the slowest health answer is compared with the slowest one while the
 * server handles a harmless request of the same size, sent in the same test.
 */
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server.js';
import { readPdf } from './support/pdf.js';
import { removeTempDirs } from './support/files.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server.close();
  await removeTempDirs();
});

/**
 * How much slower the loop answers while `hostile` is handled than while `harmless` (the same size)
 * is: the ratio of the slowest health answers, each counted as at least 100 ms, so that a busy
 * machine's scheduling does not count. A freeze of minutes gives hundreds; a linear scan about 1.
 */
async function slowdown(
  hostile: Record<string, unknown>,
  harmless: Record<string, unknown>,
): Promise<{ ratio: number; response: Response }> {
  const reference = await healthWhileRendering(harmless);
  expect(reference.response.status).toBe(200);
  const { slowestMs, response } = await healthWhileRendering(hostile);
  return { ratio: Math.max(slowestMs, 100) / Math.max(reference.slowestMs, 100), response };
}

/** Send `body` to render-sync while checking /healthz, one check after another; the slowest health answer, and the render's answer. */
async function healthWhileRendering(body: Record<string, unknown>): Promise<{ slowestMs: number; response: Response }> {
  let done = false;
  const rendering = fetch(`${server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
    body: JSON.stringify(body),
  }).finally(() => (done = true));
  let slowestMs = 0;
  while (!done) {
    const started = performance.now();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    slowestMs = Math.max(slowestMs, performance.now() - started);
  }
  return { slowestMs, response: await rendering };
}

describe('/healthz answers while a hostile request is handled', () => {
  it('with a 512 KiB header template of url(, <img and class= runs', async () => {
    // In a comment, so Chromium has nothing to lay out; the scans of the template still see it all.
    const runs = 'url('.repeat(44_000) + '<img'.repeat(44_000) + 'class='.repeat(28_000);
    const { ratio, response } = await slowdown(
      { htmlContent: '<p>body</p>', headerHtmlContent: `<!--${runs}-->Header` },
      { htmlContent: '<p>body</p>', headerHtmlContent: `<!--${'x'.repeat(runs.length)}-->Header` },
    );
    expect([response.status, response.status === 200 ? '' : await response.text()]).toEqual([200, '']);
    expect(ratio).toBeLessThan(10);
  });

  it('with a document whose title (copied into the PDF) is 1 MB of <', async () => {
    const { ratio, response } = await slowdown(
      { htmlContent: `<title>${'<'.repeat(1024 * 1024)}</title><p>Title body</p>` },
      { htmlContent: `<title>${'x'.repeat(1024 * 1024)}</title><p>Title body</p>` },
    );
    expect(response.status).toBe(200);
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toContain('Title body');
    expect(ratio).toBeLessThan(10);
  });
});
