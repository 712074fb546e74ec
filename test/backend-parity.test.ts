/**
 * The same HTTP conversation with a server on SQLite and a server on PostgreSQL gives the same
 * answers: statuses, bodies, rate-limit headers, job statuses, webhook payloads and the PDFs. Ids
 * and URLs differ by nature, so they are replaced by what they name before comparing. Real
 * Chromium, a real throw-away PostgreSQL cluster, a real webhook receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { startCluster, type Cluster } from './support/postgres.js';
import { receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

let engine: Engine;
let cluster: Cluster;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 20_000 });
  cluster = await startCluster();
});

afterAll(async () => {
  await engine.close();
  await cluster.stop();
  await removeTempDirs();
});

/** Ids, URLs, the receiver's port and the report's timings replaced by stable names, so two servers' answers compare. */
function normalize(value: unknown, server: TestServer, names: Map<string, string>): unknown {
  const text = JSON.stringify(value)
    .replaceAll(server.url, '<server>')
    .replace(/127\.0\.0\.1:\d+/g, '<receiver>')
    .replace(/\b(job|wh|whk|whsec|evt)_[A-Za-z0-9_+/=-]+/g, (id, kind: string) => {
      if (!names.has(id)) names.set(id, `<${kind}${names.size}>`);
      return names.get(id)!;
    })
    .replace(/files\/[A-Za-z0-9_-]{22}/g, 'files/<file>')
    // Timings in a report, in a body or in a header's JSON (its quotes escaped here).
    .replace(/(\\?"(?:loadMs|waitMs|printMs|reportMs)\\?":)\d+/g, (_, key: string) => `${key}0`);
  return JSON.parse(text);
}

/** One conversation: webhooks, async (with a duplicate), its status, event and file, sync up to its rate limit, a missing job. */
async function conversation(flags: Record<string, unknown>): Promise<unknown[]> {
  const hook = await receiver();
  const server = await startServer({ rateLimit: 2, ...flags }, { engine });
  const names = new Map<string, string>();
  const transcript: unknown[] = [];
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const type = response.headers.get('content-type') ?? '';
    const answer = type.includes('json')
      ? await response.json()
      : { text: (await readPdf(new Uint8Array(await response.arrayBuffer()))).pages.map((page) => page.text) };
    const headers = Object.fromEntries(
      ['ratelimit', 'ratelimit-policy', 'retry-after', 'content-type'].map((name) => [
        name,
        response.headers.get(name),
      ]),
    );
    transcript.push(normalize({ method, path, status: response.status, headers, answer }, server, names));
    return answer as Record<string, unknown>;
  };
  try {
    await call('POST', '/api/webhooks', { url: hook.url });
    await call('GET', '/api/webhooks');
    const queued = await call('POST', '/api/pdfs/render-async', {
      htmlContent: '<h1>Parity</h1><p>async</p>',
      identifier: 'parity',
      priority: 3,
    });
    await call('POST', '/api/pdfs/render-async', { htmlContent: '<p>again</p>', identifier: 'parity' });
    await call('POST', '/api/pdfs/render-async', { htmlContent: '<p>bad</p>', identifier: 'bad', priority: 99 });
    const jobPath = `/api/pdfs/jobs/${queued.jobId as string}`;
    await until(
      async () =>
        ((await (await fetch(`${server.url}${jobPath}`)).json()) as { status: string }).status === 'succeeded',
      'the job to succeed',
    );
    const status = await call('GET', jobPath);
    const arrival = await until(() => hook.received[0], 'the webhook');
    transcript.push(
      normalize(
        {
          webhook: JSON.parse(arrival.body),
          signed: Object.keys(arrival.headers)
            .filter((name) => name.startsWith('webhook-'))
            .sort(),
        },
        server,
        names,
      ),
    );
    await call('GET', new URL(status.fileUrl as string).pathname);
    for (let i = 0; i < 3; i += 1)
      await call('POST', '/api/pdfs/render-sync', {
        htmlContent: `<p>sync ${i}</p>`,
        paperWidth: '100mm',
        paperHeight: '100mm',
      });
    await call('GET', '/api/pdfs/jobs/job_missing');
    await call('GET', '/api/pdfs/files/AAAAAAAAAAAAAAAAAAAAAA');
    return transcript;
  } finally {
    await server.close();
    hook.close();
  }
}

describe('SQLite and PostgreSQL', () => {
  it('answer the same conversation the same way', async () => {
    const sqlite = await conversation({});
    const postgres = await conversation({ database: await cluster.createDatabase('parity') });
    expect(postgres).toEqual(sqlite);
    // The conversation did what it says: a 202, a 402, a 422, the event, the file, two syncs and a 429.
    expect(sqlite.map((entry) => (entry as { status?: number }).status ?? 'webhook')).toEqual([
      201,
      200,
      202,
      402,
      422,
      200,
      'webhook',
      200,
      200,
      200,
      429,
      404,
      404,
    ]);
    expect(JSON.stringify(sqlite)).toContain('"type":"PDF_RENDERED"');
  }, 120_000);
});
