/**
 * A file URL is a capability: with API keys on, it downloads without the key (as RenderPDF.io
 * clients fetch it), unless --private-files; every other route still needs the key. Real
 * servers on ephemeral ports, real Chromium; the downloads are read as PDFs.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

const key = { Authorization: 'Bearer s3cret' };
let engine: Engine;
let open: TestServer;
let closed: TestServer;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 5000 });
  [open, closed] = await Promise.all([
    startServer({ apiKeys: ['s3cret'] }, { engine }),
    startServer({ apiKeys: ['s3cret'], privateFiles: true }, { engine }),
  ]);
});

afterAll(async () => {
  await Promise.all([open.close(), closed.close()]);
  await engine.close();
  await removeTempDirs();
});

/** Render `text` with the key; the PDF bytes and the file's URL. */
async function rendered(server: TestServer, text: string): Promise<{ pdf: Uint8Array; fileUrl: string }> {
  const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { ...key, 'Content-Type': 'application/json', Accept: 'application/pdf' },
    body: JSON.stringify({ htmlContent: `<p>${text}</p>` }),
  });
  expect(response.status).toBe(200);
  return { pdf: new Uint8Array(await response.arrayBuffer()), fileUrl: response.headers.get('content-location')! };
}

/** A request with its path sent exactly as written (fetch would resolve "..", a server must too). */
function raw(server: TestServer, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const url = new URL(server.url);
    request({ host: url.hostname, port: url.port, method, path }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    })
      .on('error', reject)
      .end();
  });
}

describe('file URLs with API keys on', () => {
  it('download without the key by default: the same PDF, not to be passed on by links in it', async () => {
    const { pdf, fileUrl } = await rendered(open, 'Capability');
    const download = await fetch(fileUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('referrer-policy')).toBe('no-referrer');
    expect(download.headers.get('x-robots-tag')).toBe('noindex');
    const bytes = new Uint8Array(await download.arrayBuffer());
    expect(bytes).toEqual(pdf);
    expect((await readPdf(bytes)).pages[0]!.text).toBe('Capability');
    // A key sent along is not looked at, a wrong one (another service's) included; HEAD answers too.
    expect((await fetch(fileUrl, { headers: { Authorization: 'Bearer someone-else' } })).status).toBe(200);
    expect((await fetch(fileUrl, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(fileUrl, { headers: key })).status).toBe(200);
  });

  it('answer 404 for an unknown id, with or without the key', async () => {
    for (const headers of [{}, key]) {
      const missing = await fetch(`${open.url}/api/pdfs/files/AAAAAAAAAAAAAAAAAAAAAA`, { headers });
      expect(missing.status).toBe(404);
      expect((await missing.json()).outcome).toBe('NOT_FOUND');
    }
  });

  it('leave every other route behind the key', async () => {
    const { fileUrl } = await rendered(open, 'x');
    const path = new URL(fileUrl).pathname;
    const refused: Array<[string, string]> = [
      ['POST', '/api/pdfs/render-sync'],
      ['POST', '/api/pdfs/render-async'],
      ['GET', '/api/pdfs/jobs/job_x'],
      ['GET', '/api/webhooks'],
      ['POST', '/api/webhooks'],
      ['DELETE', '/api/webhooks/wh_x'],
      ['POST', '/api/webhooks/wh_x/rotate'],
      ['POST', '/api/webhooks/wh_x/enable'],
      // Other methods on a file's URL, and paths that only start like one.
      ['POST', path],
      ['DELETE', path],
      ['GET', '/api/pdfs/files/'],
      ['GET', `${path}/x`],
      ['GET', `${path}/../../jobs/job_x`],
      ['GET', `${path}/%2e%2e/%2e%2e/jobs/job_x`],
    ];
    for (const [method, target] of refused) expect(await raw(open, method, target), `${method} ${target}`).toBe(401);
    expect(await raw(open, 'GET', path)).toBe(200);
  });

  it('need the key with --private-files (PDFRENDER_PRIVATE_FILES)', async () => {
    const { pdf, fileUrl } = await rendered(closed, 'Private');
    const missing = await fetch(fileUrl);
    expect(missing.status).toBe(401);
    expect((await missing.json()).outcome).toBe('MISSING_API_KEY');
    expect((await fetch(fileUrl, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    const download = await fetch(fileUrl, { headers: key });
    expect(download.status).toBe(200);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(pdf);
    expect((await fetch(`${closed.url}/api/pdfs/files/AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(401);
    expect(loadServeConfig({}, { PDFRENDER_PRIVATE_FILES: 'true' }, '/srv').privateFiles).toBe(true);
    expect(loadServeConfig({}, {}, '/srv').privateFiles).toBe(false);
  });
});
