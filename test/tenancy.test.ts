/**
 * Callers own their work (issue 27 §1): with two API keys against one server, each key sees and
 * manages only the webhook endpoints it added (another's is 404, as an id nobody has), its jobs are
 * announced only to its own endpoints (and the operator's global ones), another key cannot read its
 * job's status, and with --private-files another key cannot download its file. The operator's CLI
 * sees every endpoint and gives one to a key or to every key. Real Chromium, real HTTP, real
 * receivers; the store rules themselves are proved on both backends in store-contract-webhooks.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { removeTempDirs } from './support/files.js';
import { receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

const keyA = 'key-of-team-a-0123456789';
const keyB = 'key-of-team-b-9876543210';

// Chromium starts on the first render, not here.
const engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 10_000 });
afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

/** A request to `server` with `key`, answering status and JSON. */
async function call(server: TestServer, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

describe('two API keys on one server', () => {
  it("keep their webhook endpoints, their jobs' events and their job statuses apart", async () => {
    const server = await startServer({ apiKeys: [keyA, keyB] }, { engine }, { realClock: true });
    const [hookA, hookB] = [await receiver(), await receiver()];
    try {
      const endpointA = (await call(server, keyA, 'POST', '/api/webhooks', { url: hookA.url })).body;
      const endpointB = (await call(server, keyB, 'POST', '/api/webhooks', { url: hookB.url })).body;
      expect((await call(server, keyB, 'GET', '/api/webhooks')).body.webhooks.map((e: { id: string }) => e.id)).toEqual(
        [endpointB.id],
      );
      // Another key's endpoint is not there: no rotation (its new secret), no enable, no removal.
      for (const [method, path] of [
        ['POST', `/api/webhooks/${endpointA.id}/rotate`],
        ['POST', `/api/webhooks/${endpointA.id}/enable`],
        ['DELETE', `/api/webhooks/${endpointA.id}`],
      ] as const) {
        expect(await call(server, keyB, method, path)).toMatchObject({ status: 404, body: { outcome: 'NOT_FOUND' } });
      }
      expect((await call(server, keyA, 'GET', '/api/webhooks')).body.webhooks).toHaveLength(1);

      const jobA = await call(server, keyA, 'POST', '/api/pdfs/render-async', {
        identifier: 'same-id',
        htmlContent: '<p>team A</p>',
      });
      // Identifier dedupe is per key: B may use the same identifier.
      const jobB = await call(server, keyB, 'POST', '/api/pdfs/render-async', {
        identifier: 'same-id',
        htmlContent: '<p>team B</p>',
      });
      expect([jobA.status, jobB.status]).toEqual([202, 202]);
      await until(() => hookA.received.length >= 1 && hookB.received.length >= 1, 'both events');
      // Both jobs finished and were announced: each receiver has its own key's event and no other.
      await until(
        async () =>
          (await call(server, keyA, 'GET', `/api/pdfs/jobs/${jobA.body.jobId}`)).body.status === 'succeeded' &&
          (await call(server, keyB, 'GET', `/api/pdfs/jobs/${jobB.body.jobId}`)).body.status === 'succeeded',
        'both jobs finished',
      );
      await until(
        async () => (await server.deps.store.deliveries.log(10)).every((d) => d.status === 'delivered'),
        'all sent',
      );
      const jobIdsAt = (hook: { received: { body: string }[] }) =>
        hook.received.map((arrival) => JSON.parse(arrival.body).payload.jobId);
      expect(jobIdsAt(hookA)).toEqual([jobA.body.jobId]);
      expect(jobIdsAt(hookB)).toEqual([jobB.body.jobId]);
      expect(hookA.received[0]!.headers.authorization).toBe(`Bearer ${endpointA.key}`);

      // Another key's job status is not there either.
      expect(await call(server, keyB, 'GET', `/api/pdfs/jobs/${jobA.body.jobId}`)).toMatchObject({ status: 404 });
      expect(await call(server, keyA, 'GET', `/api/pdfs/jobs/${jobA.body.jobId}`)).toMatchObject({ status: 200 });
    } finally {
      hookA.close();
      hookB.close();
      await server.close();
    }
  });

  it('answers 412 to render-async from a key with no endpoint of its own, whatever other keys have', async () => {
    const server = await startServer({ apiKeys: [keyA, keyB] }, { engine });
    const hook = await receiver();
    try {
      expect((await call(server, keyA, 'POST', '/api/webhooks', { url: hook.url })).status).toBe(201);
      expect(
        await call(server, keyB, 'POST', '/api/pdfs/render-async', { identifier: 'x', htmlContent: '<p>x</p>' }),
      ).toMatchObject({ status: 412, body: { outcome: 'WEBHOOK_NOT_CONFIGURED' } });
    } finally {
      hook.close();
      await server.close();
    }
  });

  it('with --private-files, downloads a file only with the key whose render made it', async () => {
    const server = await startServer({ apiKeys: [keyA, keyB], privateFiles: true }, { engine });
    try {
      const rendered = await call(server, keyA, 'POST', '/api/pdfs/render-sync', { htmlContent: '<p>mine</p>' });
      expect(rendered.status).toBe(200);
      const path = new URL(rendered.body.fileUrl).pathname;
      expect((await call(server, keyB, 'GET', path)).status).toBe(404);
      const own = await fetch(`${server.url}${path}`, { headers: { Authorization: `Bearer ${keyA}` } });
      expect([own.status, own.headers.get('content-type')]).toEqual([200, 'application/pdf']);
    } finally {
      await server.close();
    }
  });
});

describe('an --admin-key', () => {
  it("manages every key's endpoints, adds a global one, and reads every key's job; no other key may add a global one", async () => {
    const admin = 'the-operators-key-000000';
    const server = await startServer({ apiKeys: [keyA], adminKeys: [admin] }, { engine }, { realClock: true });
    const [hookA, hookAll] = [await receiver(), await receiver()];
    try {
      const ofA = (await call(server, keyA, 'POST', '/api/webhooks', { url: hookA.url })).body;
      expect(await call(server, keyA, 'POST', '/api/webhooks', { url: hookAll.url, global: true })).toMatchObject({
        status: 422,
        body: { outcome: 'VALIDATION_FAILED' },
      });
      const global = await call(server, admin, 'POST', '/api/webhooks', { url: hookAll.url, global: true });
      expect(global.status).toBe(201);
      expect(
        (await call(server, admin, 'GET', '/api/webhooks')).body.webhooks.map((e: { id: string }) => e.id),
      ).toEqual([ofA.id, global.body.id]);
      expect((await call(server, keyA, 'GET', '/api/webhooks')).body.webhooks.map((e: { id: string }) => e.id)).toEqual(
        [ofA.id],
      );
      expect((await call(server, admin, 'POST', `/api/webhooks/${ofA.id}/rotate`)).status).toBe(200);
      const job = await call(server, keyA, 'POST', '/api/pdfs/render-async', {
        identifier: 'a',
        htmlContent: '<p>a</p>',
      });
      expect((await call(server, admin, 'GET', `/api/pdfs/jobs/${job.body.jobId}`)).status).toBe(200);
      await until(() => hookA.received.length >= 1 && hookAll.received.length >= 1, "A's and the global endpoint");
    } finally {
      hookA.close();
      hookAll.close();
      await server.close();
    }
  });
});

describe("the operator's CLI", () => {
  it("adds an endpoint for a key, lists every key's with its owner, and makes one global", async () => {
    const server = await startServer({ apiKeys: [keyA, keyB] }, { engine }, { realClock: true });
    const [hookA, hookAll] = [await receiver(), await receiver()];
    const dataDir = server.deps.config.dataDir;
    try {
      const added = await pdfrender([
        'webhooks',
        'add',
        hookA.url,
        '--for-key',
        keyA,
        '--data-dir',
        dataDir,
        '--json',
        '--allow-private-webhooks',
      ]);
      expect(added.code).toBe(0);
      const forA = JSON.parse(String(added.stdout));
      // Key A manages it through the API; key B does not see it.
      expect((await call(server, keyA, 'GET', '/api/webhooks')).body.webhooks.map((e: { id: string }) => e.id)).toEqual(
        [forA.id],
      );
      expect((await call(server, keyB, 'GET', '/api/webhooks')).body.webhooks).toEqual([]);
      const other = await pdfrender([
        'webhooks',
        'add',
        hookAll.url,
        '--data-dir',
        dataDir,
        '--json',
        '--allow-private-webhooks',
      ]);
      const unowned = JSON.parse(String(other.stdout));
      expect(unowned.owner).toBe('');
      const assigned = await pdfrender(['webhooks', 'assign', unowned.id, '--global', '--data-dir', dataDir]);
      expect([assigned.code, String(assigned.stdout).trim()]).toEqual([0, `${unowned.id}: global`]);
      const listed = await pdfrender(['webhooks', 'list', '--data-dir', dataDir, '--json']);
      expect(
        JSON.parse(String(listed.stdout)).map((e: { id: string; owner: string }) => [
          e.id,
          e.owner === '*' ? '*' : e.owner.slice(0, 4),
        ]),
      ).toEqual([
        [forA.id, 'key:'],
        [unowned.id, '*'],
      ]);
      const mixed = await pdfrender(['webhooks', 'assign', unowned.id, '--global', '--unowned', '--data-dir', dataDir]);
      expect([mixed.code, mixed.stderr]).toEqual([2, expect.stringContaining('give one')]);

      // The global endpoint receives B's job's event, though B has no endpoint of its own.
      const job = await call(server, keyB, 'POST', '/api/pdfs/render-async', {
        identifier: 'b',
        htmlContent: '<p>b</p>',
      });
      expect(job.status).toBe(202);
      await until(() => hookAll.received.length >= 1, 'the global endpoint');
      expect(JSON.parse(hookAll.received[0]!.body).payload.jobId).toBe(job.body.jobId);
      expect(hookA.received).toEqual([]);
    } finally {
      hookA.close();
      hookAll.close();
      await server.close();
    }
  });
});
