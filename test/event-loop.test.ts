/**
 * No request may freeze the event loop: while the server works on a request built to make a scan
 * of caller text (its header template, or the PDF that holds its title) as slow as possible,
 * /healthz keeps answering. The server runs in this process, so a frozen loop delays the health
 * checks by the whole freeze (minutes before the scans were made linear; milliseconds now).
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

/** Send `body` to render-sync while checking /healthz every 50 ms; the slowest health answer, and the render's answer. */
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
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { slowestMs, response: await rendering };
}

describe('/healthz answers while a hostile request is handled', () => {
  it('with a 512 KiB header template of url(, <img and class= runs', async () => {
    // In a comment, so Chromium has nothing to lay out; the scans of the template still see it all.
    const runs = 'url('.repeat(44_000) + '<img'.repeat(44_000) + 'class='.repeat(28_000);
    const { slowestMs, response } = await healthWhileRendering({ htmlContent: '<p>body</p>', headerHtmlContent: `<!--${runs}-->Header` });
    expect([response.status, response.status === 200 ? '' : await response.text()]).toEqual([200, '']);
    expect(slowestMs).toBeLessThan(2000);
  });

  it('with a document whose title (copied into the PDF) is 1 MB of <', async () => {
    const { slowestMs, response } = await healthWhileRendering({ htmlContent: `<title>${'<'.repeat(1024 * 1024)}</title><p>Title body</p>` });
    expect(response.status).toBe(200);
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toContain('Title body');
    expect(slowestMs).toBeLessThan(2000);
  });
});
