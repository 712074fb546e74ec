/**
 * Safe messages to callers, details to the operator's log (issue 9.8), through a real server and
 * real Chromium. A name that resolves to a private address and a name that does not exist must be
 * reported alike on every path (sync body and headers, job status), or the report is a DNS oracle
 * into the server's network; a raw error (here a real one: the database refuses file rows, naming
 * the files folder) reaches no caller, sync, job status or webhook, while its cause, path included,
 * is in the server's log.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../src/network/resolve-checked.js';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { receiver, type Receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

// intranet.test is an internal name (loopback); nowhere.test does not exist.
const resolver: Resolver = async (host) => {
  if (host === 'intranet.test') return ['127.0.0.1'];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

// Each name reached by the page (plain http, and an https tunnel) and by a header image.
const names = ['intranet.test', 'nowhere.test'];
const request = {
  htmlContent: `<p>Oracle check</p>${names.map((name) => `<iframe src="http://${name}/page"></iframe><iframe src="https://${name}/page"></iframe>`).join('')}`,
  headerHtmlContent: names.map((name) => `<img src="http://${name}/logo.png">`).join(''),
  marginTop: '20mm',
};
const urls = names.flatMap((name) => [`http://${name}/page`, `https://${name}/page`, `http://${name}/logo.png`]);

interface Issue {
  url: string;
  code: string;
  reason: string;
}

/** Every URL blocked, and all for the same code and reason: nothing tells the two names apart. */
function expectIndistinguishable(blocked: Issue[], failed: Issue[]): void {
  expect(failed).toEqual([]);
  expect(blocked.map((issue) => issue.url).sort()).toEqual([...urls].sort());
  expect(new Set(blocked.map((issue) => JSON.stringify({ code: issue.code, reason: issue.reason }))).size).toBe(1);
  expect(blocked[0]).toMatchObject({
    code: 'NETWORK_POLICY',
    reason: 'blocked by the network policy (public addresses only)',
  });
  expect(JSON.stringify(blocked)).not.toMatch(/127\.0\.0\.1|ENOTFOUND|resolve|loopback/);
}

const postJson = (server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Queue `body` and wait for its job to finish; the job's final status. */
async function finishedJob(server: TestServer, body: unknown): Promise<Record<string, unknown>> {
  const queued = await postJson(server, '/api/pdfs/render-async', body);
  expect(queued.status).toBe(202);
  const { statusUrl } = await queued.json();
  return until(async () => {
    const status = await (await fetch(statusUrl)).json();
    return ['succeeded', 'failed'].includes(status.status) ? status : undefined;
  }, 'the job to finish');
}

let hook: Receiver;
beforeAll(async () => {
  hook = await receiver();
});
afterAll(async () => {
  hook.close();
  await removeTempDirs();
});

describe('blocked URLs: one safe reason whether a name is internal or does not exist', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ maxAttempts: 1 }, undefined, { realClock: true, resolver });
    await server.deps.webhooks.add(hook.url, Date.now());
  });
  afterAll(() => server.close());

  it('in the sync body, with the detail in the server log only', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', request);
    expect(response.status).toBe(200);
    const body = await response.json();
    expectIndistinguishable(body.blocked, body.failed);
    const pdf = await readPdf(new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer()));
    expect(pdf.pages[0]!.text).toContain('Oracle check');
    // The operator still learns what each name did.
    const details = server.events.flatMap((event) => event.issues ?? []).map((issue) => issue.detail);
    expect(details).toEqual(
      expect.arrayContaining([
        expect.stringContaining('intranet.test resolves to 127.0.0.1'),
        expect.stringContaining('cannot resolve nowhere.test: ENOTFOUND'),
      ]),
    );
  });

  it('in the sync response headers', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', request, { Accept: 'application/pdf' });
    expect(response.status).toBe(200);
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toContain('Oracle check');
    expect(response.headers.get('x-pdfrender-failed')).toBeNull();
    expectIndistinguishable(JSON.parse(response.headers.get('x-pdfrender-blocked')!), []);
  });

  it('in the async job status', async () => {
    const status = await finishedJob(server, { ...request, identifier: 'oracle-async' });
    expect(status.status).toBe('succeeded');
    expectIndistinguishable(status.blocked as Issue[], status.failed as Issue[]);
  });
});

describe('a raw error reaches no caller; its cause reaches the log', () => {
  let server: TestServer;
  let filesDir: string;
  beforeAll(async () => {
    server = await startServer({ maxAttempts: 1 }, undefined, { realClock: true });
    await server.deps.webhooks.add(hook.url, Date.now());
    // A real fault, and not one of the storage (those have their own documented statuses): the
    // database refuses every file row, with a message naming the path.
    filesDir = join(server.deps.config.dataDir, 'files');
    server.db.exec(
      `CREATE TRIGGER refuse_files BEFORE INSERT ON files BEGIN SELECT RAISE(ABORT, 'no more files in ${filesDir}'); END`,
    );
  });
  afterAll(() => server.close());

  const generic = {
    code: 'INTERNAL_ERROR',
    message: "pdfrender failed unexpectedly; the cause is in the operator's log",
  };

  it('sync: a 500 with a code and a generic message; the cause, with its stack, in the log', async () => {
    const response = await postJson(server, '/api/pdfs/render-sync', { htmlContent: '<p>sync</p>' });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ outcome: generic.code, message: generic.message });
    const logged = server.events.find(
      (event) => event.request === 'POST /api/pdfs/render-sync' && event.code === 'INTERNAL_ERROR',
    );
    expect((logged?.error as Error | undefined)?.message).toContain(filesDir);
    expect((logged?.error as Error | undefined)?.stack).toContain('at ');
  });

  it('async: the same code and message in the job status and the webhook; the cause in the log', async () => {
    const status = await finishedJob(server, { htmlContent: '<p>async</p>', identifier: 'raw-error' });
    expect(status).toMatchObject({ status: 'failed', error: generic.message, errorCode: generic.code });
    const event = await until(
      () => hook.received.map((arrival) => JSON.parse(arrival.body)).find((body) => body.payload?.id === 'raw-error'),
      'the failure webhook',
    );
    expect(event).toEqual({
      type: 'RENDER_PDF_FAILED',
      payload: { id: 'raw-error', jobId: status.jobId, error: generic.message, errorCode: generic.code },
    });
    expect(JSON.stringify([status, event])).not.toContain(server.deps.config.dataDir);
    const logged = server.events.find((event) => event.jobId === status.jobId && event.code === 'INTERNAL_ERROR');
    expect((logged?.error as Error | undefined)?.message).toContain(filesDir);
  });
});
