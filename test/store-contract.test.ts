/**
 * The Store contract, run against both backends (SQLite in a temp data dir, PostgreSQL in a fresh
 * database of a throw-away cluster): the same calls give the same answers, rows and errors. The
 * queue (order, dedupe, bounds, leases, fencing, retries, the events written with a job's final
 * status, the sweep); see store-contract-webhooks.test.ts for deliveries, endpoints, rate windows,
 * files and blobs.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { NetworkReport } from '../src/engine/network-report.js';
import { emptyReport, type RenderReport } from '../src/engine/report/render-report.js';
import { isPdfRenderError } from '../src/errors.js';
import type { JobError, JobQueue, Store } from '../src/store/contract.js';
import { enqueueInput as job, roomyBounds as bounds } from './support/enqueue-input.js';
import { removeTempDirs } from './support/files.js';
import { backends, stopPostgres, type Opened } from './support/store-backends.js';

afterAll(async () => {
  await stopPostgres();
  await removeTempDirs();
});

/** A failed attempt as the worker records it. */
const renderFailure = (message: string): JobError => ({ code: 'RENDER_PDF_FAILED', message });

/** The error a call rejects with (failing the test when it resolves). */
async function refusal(call: Promise<unknown>): Promise<Error & { code?: string; retryAfter?: number }> {
  return call.then(
    () => expect.fail('expected a refusal'),
    (error: Error) => error,
  );
}

describe.each(backends)('$name store: queue', (backend) => {
  let opened: Opened;
  let store: Store;
  let queue: JobQueue;
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    queue = store.queue;
    return () => opened.close();
  });

  const deliveryRows = (jobId?: string) =>
    opened.sql<{ event_id: string; job_id: string; endpoint_id: string; body: string; status: string }>(
      `SELECT event_id, job_id, endpoint_id, body, status FROM webhook_deliveries ${jobId ? 'WHERE job_id = ?' : ''} ORDER BY id`,
      ...(jobId ? [jobId] : []),
    );

  it('queues a job with its request, and refuses the same identifier within the window only', async () => {
    const queued = await queue.enqueue(job({ identifier: 'invoice-1', priority: 5 }));
    expect(queued).toMatchObject({
      identifier: 'invoice-1',
      priority: 5,
      status: 'queued',
      attempts: 0,
      request: { htmlContent: '<p>x</p>' },
      createdAt: 1_000_000,
    });
    expect(queued.id).toMatch(/^job_[\w-]{16}$/);
    expect(await queue.get(queued.id)).toEqual(queued);
    const duplicate = await refusal(queue.enqueue(job({ identifier: 'invoice-1', now: 1_000_000 + 59_000 })));
    expect(isPdfRenderError(duplicate, 'DUPLICATE_IDENTIFIER')).toBe(true);
    expect(duplicate.message).toBe(
      'identifier "invoice-1" was already sent in the last 60 s; it may be used again in 1 s',
    );
    expect((await queue.enqueue(job({ identifier: 'invoice-1', caller: 'key:other', now: 1_059_000 }))).status).toBe(
      'queued',
    );
    expect((await queue.enqueue(job({ identifier: 'invoice-1', now: 1_060_000 }))).status).toBe('queued');
  });

  it('answers the same request sent again within the window with the job it queued, as that job is now; another request, or after the window, as before', async () => {
    const send = (overrides: Parameters<typeof job>[0]) =>
      queue.enqueue(job({ identifier: 'retry-1', priority: 2, request: { htmlContent: '<p>a</p>' }, ...overrides }));
    const queued = await send({});
    expect(await send({ now: 1_000_000 + 10_000 })).toEqual(queued);
    // Claimed since: the retry is told it is rendering, and no second job appears.
    await queue.claim('w', 1_000_000 + 20_000, 60_000);
    expect(await send({ now: 1_000_000 + 59_000 })).toMatchObject({ id: queued.id, status: 'rendering', attempts: 1 });
    // Not the same request: another document, or another priority.
    expect(
      isPdfRenderError(
        await refusal(send({ request: { htmlContent: '<p>b</p>' }, now: 1_000_000 + 30_000 })),
        'DUPLICATE_IDENTIFIER',
      ),
    ).toBe(true);
    expect(
      isPdfRenderError(await refusal(send({ priority: 3, now: 1_000_000 + 30_000 })), 'DUPLICATE_IDENTIFIER'),
    ).toBe(true);
    // Another caller's identical request is its own job.
    expect((await send({ caller: 'key:other' })).id).not.toBe(queued.id);
    // After the window the same request is a new job, and a retry of it answers the new one.
    const again = await send({ now: 1_000_000 + 60_000 });
    expect(again.id).not.toBe(queued.id);
    expect((await send({ now: 1_000_000 + 61_000 })).id).toBe(again.id);
    expect(await opened.sql("SELECT id FROM jobs WHERE identifier = 'retry-1'")).toHaveLength(3);
  });

  it('bounds the jobs and request bytes of each caller and of everyone, counting only jobs queued or rendering', async () => {
    const full = await (async () => {
      for (let i = 0; i < 2; i += 1)
        await queue.enqueue(job({ caller: `key:${i}`, bounds: { ...bounds, maxQueue: 2 } }));
      return refusal(queue.enqueue(job({ bounds: { ...bounds, maxQueue: 2 } })));
    })();
    expect(full).toMatchObject({
      code: 'QUEUE_FULL',
      retryAfter: 30,
      message: 'the queue holds 2 jobs already; try again when some have finished',
    });

    const tight = { ...bounds, maxQueuePerCaller: 2 };
    const first = await queue.enqueue(job({ caller: 'key:a', bounds: tight }));
    await queue.enqueue(job({ caller: 'key:a', bounds: tight }));
    expect((await refusal(queue.enqueue(job({ caller: 'key:a', bounds: tight })))).message).toMatch(
      /^you have 2 jobs queued or rendering already/,
    );
    // A finished job no longer counts (the two of key:0 and key:1 are claimed first).
    for (let i = 0; i < 3; i += 1) await queue.claim('w', 2_000_000, 1000);
    expect(await queue.complete(first.id, 'w', 2_000_001, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
    expect((await queue.enqueue(job({ caller: 'key:a', bounds: tight }))).status).toBe('queued');

    const big = { htmlContent: 'x'.repeat(1000) };
    const bytes = { maxQueue: 100, maxQueuePerCaller: 100, maxQueueBytes: 6_000, maxQueueBytesPerCaller: 2_500 };
    const small = { htmlContent: 'x' };
    await queue.enqueue(job({ caller: 'key:c', request: big, bounds: bytes }));
    await queue.enqueue(job({ caller: 'key:c', request: big, bounds: bytes }));
    expect((await refusal(queue.enqueue(job({ caller: 'key:c', request: big, bounds: bytes })))).message).toMatch(
      /^your queued jobs hold 2036 bytes of requests already, and this one \(1018 bytes\) would pass the bound of 2500 bytes per caller; try again/,
    );
    for (const caller of ['key:d', 'key:e', 'key:f']) await queue.enqueue(job({ caller, request: big, bounds: bytes }));
    const total = await refusal(queue.enqueue(job({ caller: 'key:g', request: big, bounds: bytes })));
    expect(total.message).toMatch(
      /^the queue's jobs hold \d+ bytes of requests already, and this one \(1018 bytes\) would pass its bound of 6000 bytes/,
    );
    // A byte bound never refuses a caller that holds nothing.
    expect(
      (await queue.enqueue(job({ caller: 'key:h', request: small, bounds: { ...bytes, maxQueueBytesPerCaller: 1 } })))
        .status,
    ).toBe('queued');
  });

  it('lets one request of any size into a queue, or a caller, that holds nothing', async () => {
    const tiny = { ...bounds, maxQueueBytes: 100, maxQueueBytesPerCaller: 100 };
    expect((await queue.enqueue(job({ request: { htmlContent: 'x'.repeat(1000) }, bounds: tiny }))).status).toBe(
      'queued',
    );
    // Now the queue holds more than its byte bound: the next one, of another caller, is refused.
    expect(
      isPdfRenderError(await refusal(queue.enqueue(job({ caller: 'key:other', bounds: tiny }))), 'QUEUE_FULL'),
    ).toBe(true);
  });

  it('keeps the request while an attempt may follow, and drops it when the job succeeds or fails for good', async () => {
    const storedRequest = async (id: string) =>
      (await opened.sql<{ request: string | null }>('SELECT request FROM jobs WHERE id = ?', id))[0]!.request;
    const succeeding = await queue.enqueue(job({ request: { htmlContent: '<p>kept while queued</p>' } }));
    const failing = await queue.enqueue(job({ maxAttempts: 2 }));
    const expiring = await queue.enqueue(job({ maxAttempts: 1 }));
    for (const holder of ['a', 'b', 'c']) await queue.claim(holder, 2_000_000, 1000);
    expect(JSON.parse((await storedRequest(succeeding.id))!)).toEqual({ htmlContent: '<p>kept while queued</p>' });
    await queue.complete(succeeding.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 });
    expect(await queue.fail(failing.id, 'b', 2_000_100, renderFailure('crash'), 2_000_200)).toBe('queued');
    expect(await storedRequest(failing.id)).not.toBeNull();
    await queue.claim('b', 2_000_200, 1000);
    expect(await queue.fail(failing.id, 'b', 2_000_300, renderFailure('crash again'), 0)).toBe('failed');
    expect(await queue.requeueExpired(2_002_000)).toHaveLength(1);
    for (const { id } of [succeeding, failing, expiring]) {
      expect(await storedRequest(id)).toBeNull();
      expect(await queue.get(id)).toMatchObject({
        request: null,
        status: expect.stringMatching(/^(succeeded|failed)$/),
      });
    }
  });

  it('hands out the highest priority first, then the oldest, then in the order queued', async () => {
    const low = await queue.enqueue(job({ priority: -1, now: 1 }));
    const oldNormal = await queue.enqueue(job({ priority: 0, now: 2 }));
    const high = await queue.enqueue(job({ priority: 10, now: 3 }));
    const sameTimeFirst = await queue.enqueue(job({ priority: 0, now: 4 }));
    const sameTimeSecond = await queue.enqueue(job({ priority: 0, now: 4 }));
    const order = [];
    for (let i = 0; i < 5; i += 1) order.push((await queue.claim('w', 10, 1000))!.id);
    expect(order).toEqual([high.id, oldNormal.id, sameTimeFirst.id, sameTimeSecond.id, low.id]);
    expect(await queue.claim('w', 10, 1000)).toBeNull();
  });

  it("shares the workers between callers: the next job is the caller's with the fewest rendering, whatever priorities the others sent", async () => {
    const [x, y, z] = ['key:x', 'key:y', 'key:z'];
    const xJobs = [];
    for (let i = 0; i < 8; i += 1) xJobs.push(await queue.enqueue(job({ caller: x, priority: 10, now: 1 + i })));
    const yLow = await queue.enqueue(job({ caller: y, priority: 0, now: 20 }));
    const yHigh = await queue.enqueue(job({ caller: y, priority: 5, now: 21 }));
    const zJob = await queue.enqueue(job({ caller: z, priority: -5, now: 22 }));
    const order = [];
    for (let i = 0; i < 6; i += 1) order.push((await queue.claim(`w${i}`, 100, 60_000))!.id);
    // Each caller's first before anyone's second; within a caller, its priority; among callers as
    // far along, the higher priority.
    expect(order).toEqual([xJobs[0]!.id, yHigh.id, zJob.id, xJobs[1]!.id, yLow.id, xJobs[2]!.id]);
  });

  it('leases a job to one worker: only the holder heartbeats, completes, fails or releases it', async () => {
    const queued = await queue.enqueue(job());
    expect(await queue.claim('worker-a', 2_000_000, 30_000)).toMatchObject({
      id: queued.id,
      status: 'rendering',
      attempts: 1,
      claimedBy: 'worker-a',
      claimedAt: 2_000_000,
      leaseUntil: 2_030_000,
    });
    expect(await queue.heartbeat(queued.id, 'worker-a', 2_060_000)).toBe(true);
    expect(await queue.heartbeat(queued.id, 'worker-b', 2_090_000)).toBe(false);
    expect(await queue.get(queued.id)).toMatchObject({ leaseUntil: 2_060_000 });
    expect(await queue.complete(queued.id, 'worker-b', 2_001_000, { fileId: 'f', pages: 1, bytes: 9 })).toBe(false);
    expect(await queue.fail(queued.id, 'worker-b', 2_001_000, renderFailure('x'), 0)).toBeNull();
    expect(await queue.release(queued.id, 'worker-b', 0)).toBe(false);
    // A storage fault gives the job back without spending its attempt.
    expect(await queue.release(queued.id, 'worker-a', 2_005_000)).toBe(true);
    expect(await queue.get(queued.id)).toMatchObject({
      status: 'queued',
      attempts: 0,
      claimedBy: null,
      leaseUntil: null,
      availableAt: 2_005_000,
    });
    await queue.claim('worker-a', 2_005_000, 30_000);
    const network: NetworkReport = {
      blocked: [{ url: 'http://10.0.0.1/x.png', code: 'NETWORK_BLOCKED', reason: 'a private address' }],
      failed: [],
    };
    expect(await queue.complete(queued.id, 'worker-a', 2_006_000, { fileId: 'f', pages: 2, bytes: 900, network })).toBe(
      true,
    );
    expect(await queue.get(queued.id)).toMatchObject({
      status: 'succeeded',
      attempts: 1,
      fileId: 'f',
      pages: 2,
      bytes: 900,
      finishedAt: 2_006_000,
      leaseUntil: null,
      network,
    });
  });

  it('retries a failed attempt later, and fails the job after its last attempt', async () => {
    const queued = await queue.enqueue(job({ maxAttempts: 2, now: 0 }));
    expect((await queue.claim('w', 10, 1000))!.id).toBe(queued.id);
    expect(await queue.fail(queued.id, 'w', 20, renderFailure('renderer crashed'), 5000)).toBe('queued');
    expect(await queue.claim('w', 4999, 1000)).toBeNull();
    expect((await queue.claim('w', 5000, 1000))!.attempts).toBe(2);
    expect(await queue.fail(queued.id, 'w', 5100, renderFailure('renderer crashed again'), 9000)).toBe('failed');
    expect(await queue.get(queued.id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: 'renderer crashed again',
      errorCode: 'RENDER_PDF_FAILED',
      finishedAt: 5100,
    });
    expect(await queue.fail(queued.id, 'w', 5200, renderFailure('late'), 0)).toBeNull();
  });

  it("fails the job at once, its request dropped and its event queued, when the failure is the document's (no retry time)", async () => {
    const queued = await queue.enqueue(job({ maxAttempts: 3, now: 0 }));
    await queue.claim('w', 10, 1000);
    expect(await queue.fail(queued.id, 'w', 20, renderFailure('deadline'), null)).toBe('failed');
    expect(await queue.get(queued.id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      error: 'deadline',
      finishedAt: 20,
      request: null,
    });
    expect(await queue.claim('w', 10_000, 1000)).toBeNull();
  });

  it('sends jobs whose lease ran out back to the queue (not those in hand), and a stale holder cannot complete them', async () => {
    const traceContext = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const queued = await queue.enqueue(job({ now: 0, traceContext }));
    expect((await queue.claim('crashed-worker', 100, 1000))!.id).toBe(queued.id);
    expect(await queue.requeueExpired(1100)).toEqual([]);
    expect(await queue.requeueExpired(1101, [queued.id])).toEqual([]);
    // Where it went, which attempt ran out, and its trace, for the worker's line.
    expect(await queue.requeueExpired(1101)).toEqual([
      { id: queued.id, status: 'queued', attempts: 1, maxAttempts: 3, traceContext },
    ]);
    expect(await queue.get(queued.id)).toMatchObject({
      status: 'queued',
      claimedBy: null,
      error: 'the render stopped before finishing (its lease expired)',
    });
    expect(await queue.claim('new-worker', 1200, 1000)).toMatchObject({ id: queued.id, attempts: 2 });
    expect(await queue.complete(queued.id, 'crashed-worker', 1300, { fileId: 'x', pages: 1, bytes: 1 })).toBe(false);
    expect(await queue.heartbeat(queued.id, 'crashed-worker', 9000)).toBe(false);
    expect(await queue.complete(queued.id, 'new-worker', 1300, { fileId: 'x', pages: 1, bytes: 1 })).toBe(true);
  });

  it('queues PDF_RENDERED for every endpoint with the completion (held for a disabled one), and nothing for a stale holder', async () => {
    const first = await store.webhooks.add('http://127.0.0.1:9/a', 1);
    const second = await store.webhooks.add('http://127.0.0.1:9/b', 1);
    const gone = await store.webhooks.add('http://127.0.0.1:9/c', 3);
    await store.webhooks.disable(gone.id, 4);
    const queued = await queue.enqueue(job({ identifier: 'invoice-7' }));
    await queue.claim('w', 2_000_000, 1000);
    expect(await queue.complete(queued.id, 'other', 20, { fileId: 'f1', pages: 2, bytes: 900 })).toBe(false);
    expect(await deliveryRows()).toEqual([]);
    expect(await queue.complete(queued.id, 'w', 20, { fileId: 'f1', pages: 2, bytes: 900 })).toBe(true);
    const rows = await deliveryRows(queued.id);
    expect(rows.map((row) => [row.endpoint_id, row.status])).toEqual([
      [first.id, 'pending'],
      [second.id, 'pending'],
      [gone.id, 'held'],
    ]);
    expect(rows.every((row) => row.event_id === rows[0]!.event_id)).toBe(true);
    expect(rows[0]!.body).toBe(
      `{"type":"PDF_RENDERED","payload":{"id":"invoice-7","url":"http://127.0.0.1:3000/api/pdfs/files/f1","jobId":"${queued.id}","pages":2,"bytes":900}}`,
    );
  });

  it('queues RENDER_PDF_FAILED after the last attempt only, also when the last lease ran out', async () => {
    await store.webhooks.add('http://127.0.0.1:9/a', 1);
    const doomed = await queue.enqueue(job({ identifier: 'doomed', maxAttempts: 2, now: 0 }));
    await queue.claim('w', 10, 1000);
    expect(await queue.fail(doomed.id, 'w', 20, renderFailure('crash'), 30)).toBe('queued');
    expect(await deliveryRows()).toEqual([]);
    await queue.claim('w', 30, 1000);
    expect(await queue.fail(doomed.id, 'w', 40, renderFailure('crash again'), 50)).toBe('failed');
    expect((await deliveryRows(doomed.id)).map((row) => row.body)).toEqual([
      `{"type":"RENDER_PDF_FAILED","payload":{"id":"doomed","jobId":"${doomed.id}","error":"crash again","errorCode":"RENDER_PDF_FAILED"}}`,
    ]);
    const killed = await queue.enqueue(job({ identifier: 'killed', maxAttempts: 1, now: 0 }));
    await queue.claim('crashed-worker', 100, 1000);
    expect(await queue.requeueExpired(1101)).toEqual([
      { id: killed.id, status: 'failed', attempts: 1, maxAttempts: 1, traceContext: null },
    ]);
    expect(await queue.get(killed.id)).toMatchObject({ status: 'failed', finishedAt: 1101 });
    expect((await deliveryRows(killed.id)).map((row) => JSON.parse(row.body))).toEqual([
      {
        type: 'RENDER_PDF_FAILED',
        payload: {
          id: 'killed',
          jobId: killed.id,
          error: 'the render stopped before finishing (its lease expired)',
          errorCode: 'RENDER_PDF_FAILED',
        },
      },
    ]);
  });

  it("keeps the preflight report of the render that finished a job, for its status and its event: the rendered one's, or the last attempt's when a failOn rule failed it", async () => {
    // Non-ASCII and quotes, to see the JSON column keep it as it was.
    const report: RenderReport = {
      ...emptyReport(),
      resources: {
        blocked: [],
        failed: [
          { url: 'http://127.0.0.1:1/naïve "x".png', code: 'LOAD_FAILED', reason: 'net::ERR_CONNECTION_REFUSED' },
        ],
        brokenImages: [],
      },
      timings: { loadMs: 12, waitMs: 0, printMs: 30, reportMs: 2 },
    };
    const rendered = await queue.enqueue(job({ identifier: 'reported' }));
    expect((await queue.get(rendered.id))!.report).toBeNull();
    await queue.claim('w', 2_000_000, 1000);
    expect(await queue.complete(rendered.id, 'w', 2_000_100, { fileId: 'f', pages: 1, bytes: 9, report })).toBe(true);
    expect((await queue.get(rendered.id))!.report).toEqual(report);
    // No endpoint yet, so no event: a redelivery makes it from the row.
    await store.webhooks.add('http://127.0.0.1:9/a', 1);
    expect(await store.redeliveries.redeliver(rendered.id, 2_000_200)).toMatchObject({ outcome: 'done', created: 1 });
    expect(JSON.parse((await deliveryRows(rendered.id))[0]!.body).payload).toMatchObject({ id: 'reported', report });

    const failOn = await queue.enqueue(job({ identifier: 'fail-on', maxAttempts: 2 }));
    await queue.claim('w', 2_000_000, 1000);
    // An attempt that failed otherwise (a crash) has none; the last attempt's is the one kept.
    expect(await queue.fail(failOn.id, 'w', 2_000_100, renderFailure('crash'), 2_000_200)).toBe('queued');
    expect((await queue.get(failOn.id))!.report).toBeNull();
    await queue.claim('w', 2_000_200, 1000);
    const failure: JobError = {
      code: 'RENDER_PDF_FAILED',
      message: 'failOn resourceErrors: 1 resource did not load',
      report,
    };
    expect(await queue.fail(failOn.id, 'w', 2_000_300, failure, 2_000_400)).toBe('failed');
    expect(await queue.get(failOn.id)).toMatchObject({ status: 'failed', error: failure.message, report });
    expect(JSON.parse((await deliveryRows(failOn.id))[0]!.body)).toEqual({
      type: 'RENDER_PDF_FAILED',
      payload: { id: 'fail-on', jobId: failOn.id, error: failure.message, errorCode: 'RENDER_PDF_FAILED', report },
    });
  });

  it('writes the final status and its deliveries together: when the deliveries cannot be written, the job stays as it was', async () => {
    await store.webhooks.add('http://127.0.0.1:9/a', 1);
    const done = await queue.enqueue(job({ maxAttempts: 1 }));
    const failing = await queue.enqueue(job({ maxAttempts: 1 }));
    const expiring = await queue.enqueue(job({ maxAttempts: 1 }));
    for (const holder of ['a', 'b', 'c']) await queue.claim(holder, 2_000_000, 1000);
    const undo = await opened.breakDeliveries();
    await expect(queue.complete(done.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 })).rejects.toThrow(
      'disk full',
    );
    await expect(queue.fail(failing.id, 'b', 2_000_100, renderFailure('crash'), 0)).rejects.toThrow('disk full');
    await expect(queue.requeueExpired(2_002_000)).rejects.toThrow('disk full');
    for (const { id } of [done, failing, expiring])
      expect(await queue.get(id)).toMatchObject({ status: 'rendering', finishedAt: null });
    await undo();
    expect(await queue.complete(done.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
    expect(await deliveryRows(done.id)).toHaveLength(1);
  });

  it('sweeps finished jobs, identifiers and settled deliveries past retention, and lets held events expire with their jobs', async () => {
    const endpoint = await store.webhooks.add('http://127.0.0.1:9/a', 1);
    const gone = await store.webhooks.add('http://127.0.0.1:9/gone', 1);
    await store.webhooks.disable(gone.id, 2);
    const finish = async (identifier: string, at: number, outcome: 'succeeded' | 'failed') => {
      const queued = await queue.enqueue(job({ identifier, now: at, maxAttempts: 1 }));
      await queue.claim(`w-${identifier}`, at, 1000);
      if (outcome === 'succeeded')
        await queue.complete(queued.id, `w-${identifier}`, at, { fileId: `f-${identifier}`, pages: 1, bytes: 1 });
      else await queue.fail(queued.id, `w-${identifier}`, at, renderFailure('crash'), at);
      return queued.id;
    };
    const oldDelivered = await finish('old-ok', 1_000, 'succeeded');
    const oldFailed = await finish('old-failed', 2_000, 'failed');
    const oldUndelivered = await finish('old-pending', 3_000, 'succeeded');
    const recent = await finish('recent', 50_000, 'succeeded');
    const stillQueued = (await queue.enqueue(job({ identifier: 'waiting', now: 4_000 }))).id;
    for (const delivery of await store.deliveries.claim(60_000, 10, 1000)) {
      if (delivery.jobId === oldDelivered || delivery.jobId === recent)
        await store.deliveries.succeeded(delivery.id, 200, 60_000);
      else if (delivery.jobId === oldFailed) await store.deliveries.abandon(delivery.id, 410, 'gone');
    }
    expect(await queue.sweep(2_500, 500)).toEqual({ heldExpired: 0 });
    expect(await queue.sweep(2_500, 10_000)).toEqual({ heldExpired: 3 });
    for (const id of [oldDelivered, oldFailed, oldUndelivered]) expect(await queue.get(id)).toBeNull();
    expect(await queue.get(recent)).toMatchObject({ status: 'succeeded' });
    expect(await queue.get(stillQueued)).toMatchObject({ status: 'queued' });
    expect((await deliveryRows()).map((row) => [row.job_id, row.endpoint_id, row.status])).toEqual([
      [oldUndelivered, endpoint.id, 'pending'],
      [recent, endpoint.id, 'delivered'],
      [recent, gone.id, 'held'],
    ]);
    expect(
      (await opened.sql<{ identifier: string }>('SELECT identifier FROM identifiers ORDER BY identifier')).map(
        (row) => row.identifier,
      ),
    ).toEqual(['old-pending', 'recent', 'waiting']);
    expect((await store.webhooks.list()).map((e) => e.held)).toEqual([0, 1]);
  });
});
