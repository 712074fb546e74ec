/**
 * What the async queue may hold, through a real server, real Chromium and real SQLite: jobs and
 * request bytes per caller and in total (503 QUEUE_FULL with Retry-After beyond them), and no
 * request of a finished job left in the database file. Documents wait on a local gate (an image
 * that loads only when the test opens it), so jobs stay queued exactly as long as the test needs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { startGate } from './support/gate.js';
import { receiver } from './support/receiver.js';
import { everyOwner } from '../src/store/owners.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

let engine: Engine;

beforeAll(() => {
  // The documents' images reach the gate on loopback, which holds their renders until it opens.
  engine = createEngine({
    executablePath,
    concurrency: 2,
    timeoutMs: 20_000,
    network: { network: 'public', allowHosts: ['127.0.0.1'] },
  });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

/** A server whose documents may reach the gate, with API keys a, b and c (one caller each). */
async function boundedServer(flags: Record<string, unknown>, hook: { url: string }): Promise<TestServer> {
  const server = await startServer(
    { apiKeys: ['key-a', 'key-b', 'key-c'], allowHosts: ['127.0.0.1'], ...flags },
    { engine },
    { realClock: true },
  );
  // The operator's global endpoint: every key's jobs are announced to it.
  await server.deps.webhooks.add(hook.url, Date.now(), everyOwner);
  return server;
}

let sequence = 0;
const post = (server: TestServer, key: string, htmlContent: string) =>
  fetch(`${server.url}/api/pdfs/render-async`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify({ htmlContent, identifier: `doc-${(sequence += 1)}` }),
  });

async function expectQueueFull(response: Response, message: RegExp): Promise<void> {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('30');
  const body = await response.json();
  expect(body).toEqual({ outcome: 'QUEUE_FULL', message: expect.stringMatching(message) });
}

describe('render-async bounds', () => {
  it("bounds each caller's jobs: one caller at its bound gets 503 QUEUE_FULL while another still gets 202, and simultaneous requests cannot overshoot", async () => {
    const [gate, hook] = [await startGate(), await receiver()];
    const server = await boundedServer({ maxQueuePerCaller: 3 }, hook);
    try {
      // Ten at once from one caller: exactly its three fit.
      const burst = await Promise.all(Array.from({ length: 10 }, () => post(server, 'key-a', gate.document())));
      expect(burst.map((response) => response.status).sort()).toEqual([
        202, 202, 202, 503, 503, 503, 503, 503, 503, 503,
      ]);
      await expectQueueFull(
        (await post(server, 'key-a', gate.document()))!,
        /^you have 3 jobs queued or rendering already, the most one caller may have; try again when some have finished$/,
      );
      expect((await post(server, 'key-b', gate.document())).status).toBe(202);
      // Once its jobs are done, the caller may queue again.
      gate.open();
      await until(() => hook.received.length >= 4, 'the four jobs to finish');
      expect((await post(server, 'key-a', '<p>again</p>')).status).toBe(202);
    } finally {
      await server.close();
      gate.close();
      hook.close();
    }
  }, 60_000);

  it('bounds the request bytes each caller and everyone may have queued', async () => {
    const [gate, hook] = [await startGate(), await receiver()];
    // Each request below stores about 12,400 bytes (11,500 of padding and the parsed request's 40
    // fields): two fit a caller, three the queue.
    const server = await boundedServer({ maxQueueBytesPerCaller: '25kb', maxQueueBytes: '40kb' }, hook);
    try {
      expect((await post(server, 'key-a', gate.document(11_500))).status).toBe(202);
      expect((await post(server, 'key-a', gate.document(11_500))).status).toBe(202);
      await expectQueueFull(
        await post(server, 'key-a', gate.document(11_500)),
        /^your queued jobs hold 2[45]\d{3} bytes of requests already, and this one \(12\d{3} bytes\) would pass the bound of 25600 bytes per caller; try again/,
      );
      expect((await post(server, 'key-b', gate.document(11_500))).status).toBe(202);
      await expectQueueFull(
        await post(server, 'key-c', gate.document(11_500)),
        /^the queue's jobs hold 3[6-8]\d{3} bytes of requests already, and this one \(12\d{3} bytes\) would pass its bound of 40960 bytes; try again/,
      );
      gate.open();
      await until(() => hook.received.length >= 3, 'the three jobs to finish');
      expect((await post(server, 'key-c', gate.document(11_500))).status).toBe(202);
    } finally {
      await server.close();
      gate.close();
      hook.close();
    }
  }, 60_000);
});

describe('a finished job', () => {
  it('leaves no trace of its request in the database file, and its status still answers', async () => {
    const hook = await receiver();
    const server = await boundedServer({}, hook);
    const marker = `REQUEST-MARKER-${Math.random().toString(36).slice(2)}`;
    try {
      // Large enough to spill into overflow pages, and a short one that fits in the row's own page.
      const jobs = [];
      for (const htmlContent of [`<p>${marker}</p><!--${marker.repeat(20_000)}-->`, `<p>${marker}</p>`]) {
        const response = await post(server, 'key-a', htmlContent);
        expect(response.status).toBe(202);
        jobs.push(((await response.json()) as { jobId: string }).jobId);
      }
      await until(() => hook.received.length >= 2, 'both jobs to finish');
      const db = server.db;
      for (const jobId of jobs) {
        expect(db.prepare('SELECT status, request FROM jobs WHERE id = ?').get(jobId)).toEqual({
          status: 'succeeded',
          request: null,
        });
        const status = await (
          await fetch(`${server.url}/api/pdfs/jobs/${jobId}`, { headers: { Authorization: 'Bearer key-a' } })
        ).json();
        expect(status).toMatchObject({
          outcome: 'SUCCESS',
          jobId,
          status: 'succeeded',
          pages: 1,
          fileUrl: expect.stringContaining('/api/pdfs/files/'),
        });
      }
      // Everything written so far moved into the database file, and the WAL emptied.
      expect(db.pragma('wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
      const file = join(server.deps.config.dataDir, 'pdfrender.db');
      for (const path of [file, `${file}-wal`]) expect(readFileSync(path).includes(marker)).toBe(false);
    } finally {
      await server.close();
      hook.close();
    }
  }, 60_000);
});
