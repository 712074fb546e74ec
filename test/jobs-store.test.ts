/**
 * The async job queue on a real SQLite file: order, identifier dedupe (also across two
 * connections), queue bound, leases, fencing, retries, the webhook events written with a job's
 * final status, and the retention sweep.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { isPdfRenderError } from '../src/errors.js';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { jobQueue } from '../src/store/sqlite/jobs.js';
import { openDb, type Db } from '../src/store/sqlite/open-db.js';
import { webhookEndpoints } from '../src/store/sqlite/webhook-endpoints.js';
import { enqueueInput } from './support/enqueue-input.js';
import { removeTempDirs, tempDir } from './support/files.js';
import type { EnqueueInput, JobError, JobQueue, Sync } from '../src/store/contract.js';
import { webhookEvent } from '../src/server/api/job-event.js';

afterAll(removeTempDirs);

let path: string;
let db: Db;
let queue: Sync<JobQueue>;

beforeEach(async () => {
  path = join(await tempDir(), 'pdfrender.db');
  db = openDb(path);
  queue = jobQueue(db, webhookEvent);
  return () => db.close();
});

const bounds = { maxQueue: 100, maxQueuePerCaller: 100, maxQueueBytes: 1024 ** 3, maxQueueBytesPerCaller: 1024 ** 3 };

const job = (overrides: Partial<EnqueueInput> = {}) => enqueueInput({ bounds, ...overrides });

/** A failed attempt as the worker records it. */
const renderFailure = (message: string): JobError => ({ code: 'RENDER_PDF_FAILED', message });

function refusal(input: EnqueueInput, q: Sync<JobQueue> = queue): unknown {
  try {
    q.enqueue(input);
  } catch (error) {
    return error;
  }
  throw new Error('expected the job to be refused');
}

describe('enqueue', () => {
  it('stores the request and answers with a queued job', () => {
    const queued = queue.enqueue(job({ identifier: 'invoice-1', priority: 5 }));
    expect(queued).toMatchObject({
      identifier: 'invoice-1',
      priority: 5,
      status: 'queued',
      attempts: 0,
      request: { htmlContent: '<p>x</p>' },
    });
    expect(queued.id).toMatch(/^job_[\w-]{16}$/);
    expect(queue.get(queued.id)).toEqual(queued);
  });

  it('refuses the same identifier from the same caller within the window, and takes it after', () => {
    queue.enqueue(job({ identifier: 'invoice-1' }));
    const duplicate = refusal(
      job({ identifier: 'invoice-1', request: { htmlContent: '<p>another</p>' }, now: 1_000_000 + 59_000 }),
    );
    expect(isPdfRenderError(duplicate, 'DUPLICATE_IDENTIFIER')).toBe(true);
    expect((duplicate as Error).message).toContain('may be used again in 1 s');
    // Another caller may use the same identifier.
    expect(queue.enqueue(job({ identifier: 'invoice-1', caller: 'key:other', now: 1_000_000 + 59_000 })).status).toBe(
      'queued',
    );
    expect(queue.enqueue(job({ identifier: 'invoice-1', now: 1_000_000 + 60_000 })).status).toBe('queued');
  });

  it('accepts exactly one of two connections sending the same identifier at once', () => {
    const second = jobQueue(openDb(path), webhookEvent);
    const results = [queue, second].map((q, i) => {
      try {
        return q.enqueue(job({ identifier: 'same', request: { htmlContent: `<p>${i}</p>` } })).status;
      } catch (error) {
        return (error as { code: string }).code;
      }
    });
    expect(results.sort()).toEqual(['DUPLICATE_IDENTIFIER', 'queued']);
  });

  it('refuses new jobs when the queue is full', () => {
    queue.enqueue(job({ bounds: { ...bounds, maxQueue: 2 } }));
    queue.enqueue(job({ bounds: { ...bounds, maxQueue: 2 } }));
    const full = refusal(job({ bounds: { ...bounds, maxQueue: 2 } }));
    expect(isPdfRenderError(full, 'QUEUE_FULL')).toBe(true);
    expect((full as { retryAfter: number }).retryAfter).toBe(30);
  });

  it('bounds the jobs and request bytes of each caller and of everyone, counting only jobs queued or rendering', () => {
    const tight = { maxQueue: 100, maxQueuePerCaller: 2, maxQueueBytes: 1024 ** 3, maxQueueBytesPerCaller: 1024 ** 3 };
    const first = queue.enqueue(job({ caller: 'key:a', bounds: tight }));
    queue.enqueue(job({ caller: 'key:a', bounds: tight }));
    const third = refusal(job({ caller: 'key:a', bounds: tight }));
    expect(isPdfRenderError(third, 'QUEUE_FULL')).toBe(true);
    expect((third as Error).message).toMatch(/^you have 2 jobs queued or rendering already/);
    expect(queue.enqueue(job({ caller: 'key:b', bounds: tight })).status).toBe('queued');
    // A finished job no longer counts.
    queue.claim('w', 2_000_000, 1000);
    queue.complete(first.id, 'w', 2_000_001, { fileId: 'f', pages: 1, bytes: 1 });
    expect(queue.enqueue(job({ caller: 'key:a', bounds: tight })).status).toBe('queued');

    // 1,000 characters of document make a stored request of a little more.
    const big = { htmlContent: 'x'.repeat(1000) };
    const bytes = { maxQueue: 100, maxQueuePerCaller: 100, maxQueueBytes: 5_000, maxQueueBytesPerCaller: 2_500 };
    queue.enqueue(job({ caller: 'key:c', request: big, bounds: bytes }));
    queue.enqueue(job({ caller: 'key:c', request: big, bounds: bytes }));
    expect((refusal(job({ caller: 'key:c', request: big, bounds: bytes })) as Error).message).toMatch(
      /^your queued jobs hold \d+ bytes of requests already, and this one \(\d+ bytes\) would pass the bound of 2500 bytes per caller; try again/,
    );
    queue.enqueue(job({ caller: 'key:d', request: big, bounds: bytes }));
    queue.enqueue(job({ caller: 'key:d', request: big, bounds: bytes }));
    const total = refusal(job({ caller: 'key:e', request: big, bounds: bytes }));
    expect(isPdfRenderError(total, 'QUEUE_FULL')).toBe(true);
    expect((total as Error).message).toMatch(/^the queue's jobs hold .* of requests already/);
  });

  it('lets one request of any size into a queue, or a caller, that holds nothing', () => {
    const bytes = { ...bounds, maxQueueBytes: 100, maxQueueBytesPerCaller: 100 };
    expect(queue.enqueue(job({ request: { htmlContent: 'x'.repeat(1000) }, bounds: bytes })).status).toBe('queued');
    expect(isPdfRenderError(refusal(job({ caller: 'key:other', bounds: bytes })), 'QUEUE_FULL')).toBe(true);
  });
});

describe('finished jobs', () => {
  const storedRequest = (id: string) =>
    (db.prepare('SELECT request FROM jobs WHERE id = ?').get(id) as { request: string | null }).request;

  it('keep their request while an attempt may follow, and drop it when they succeed or fail for good', () => {
    const succeeding = queue.enqueue(job({ request: { htmlContent: '<p>kept while queued</p>' } }));
    const failing = queue.enqueue(job({ maxAttempts: 2 }));
    const expiring = queue.enqueue(job({ maxAttempts: 1 }));
    for (const holder of ['a', 'b', 'c']) queue.claim(holder, 2_000_000, 1000);
    expect(JSON.parse(storedRequest(succeeding.id)!)).toEqual({ htmlContent: '<p>kept while queued</p>' });

    queue.complete(succeeding.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 });
    expect(queue.fail(failing.id, 'b', 2_000_100, renderFailure('crash'), 2_000_200)).toBe('queued');
    expect(storedRequest(failing.id)).not.toBeNull(); // the retry needs it
    queue.claim('b', 2_000_200, 1000);
    expect(queue.fail(failing.id, 'b', 2_000_300, renderFailure('crash again'), 0)).toBe('failed');
    expect(queue.requeueExpired(2_002_000)).toBe(1);

    for (const { id } of [succeeding, failing, expiring]) {
      expect(storedRequest(id)).toBeNull();
      expect(queue.get(id)).toMatchObject({ request: null, status: expect.stringMatching(/^(succeeded|failed)$/) });
    }
  });
});

describe('claim', () => {
  it('hands out the highest priority first, then the oldest', () => {
    const low = queue.enqueue(job({ priority: -1, now: 1 }));
    const oldNormal = queue.enqueue(job({ priority: 0, now: 2 }));
    const high = queue.enqueue(job({ priority: 10, now: 3 }));
    const newNormal = queue.enqueue(job({ priority: 0, now: 4 }));
    const order = [1, 2, 3, 4].map(() => queue.claim('w', 10, 1000)!.id);
    expect(order).toEqual([high.id, oldNormal.id, newNormal.id, low.id]);
    expect(queue.claim('w', 10, 1000)).toBeNull();
  });

  it('leases the job to one worker and fences completion by the lease holder', () => {
    const queued = queue.enqueue(job());
    const claimed = queue.claim('worker-a', 2_000_000, 30_000)!;
    expect(claimed).toMatchObject({
      id: queued.id,
      status: 'rendering',
      attempts: 1,
      claimedBy: 'worker-a',
      claimedAt: 2_000_000,
      leaseUntil: 2_030_000,
    });
    expect(queue.heartbeat(queued.id, 'worker-a', 2_060_000)).toBe(true);
    expect(queue.heartbeat(queued.id, 'worker-b', 2_090_000)).toBe(false);
    expect(queue.complete(queued.id, 'worker-b', 2_001_000, { fileId: 'f', pages: 1, bytes: 9 })).toBe(false);
    expect(queue.complete(queued.id, 'worker-a', 2_001_000, { fileId: 'f', pages: 2, bytes: 900 })).toBe(true);
    expect(queue.get(queued.id)).toMatchObject({
      status: 'succeeded',
      fileId: 'f',
      pages: 2,
      bytes: 900,
      finishedAt: 2_001_000,
      leaseUntil: null,
    });
  });

  it('retries a failed attempt later, and fails the job after its last attempt', () => {
    const queued = queue.enqueue(job({ maxAttempts: 2, now: 0 }));
    expect(queue.claim('w', 10, 1000)!.id).toBe(queued.id);
    expect(queue.fail(queued.id, 'w', 20, renderFailure('renderer crashed'), 5000)).toBe('queued');
    expect(queue.claim('w', 4999, 1000)).toBeNull(); // not before its retry time
    expect(queue.claim('w', 5000, 1000)!.attempts).toBe(2);
    expect(queue.fail(queued.id, 'w', 5100, renderFailure('renderer crashed again'), 9000)).toBe('failed');
    expect(queue.get(queued.id)).toMatchObject({
      status: 'failed',
      attempts: 2,
      error: 'renderer crashed again',
      errorCode: 'RENDER_PDF_FAILED',
      finishedAt: 5100,
    });
    expect(queue.fail(queued.id, 'w', 5200, renderFailure('late'), 0)).toBeNull();
  });

  it('sends jobs whose lease ran out back to the queue, and a stale holder cannot complete them', () => {
    const queued = queue.enqueue(job({ now: 0 }));
    expect(queue.claim('crashed-worker', 100, 1000)!.id).toBe(queued.id);
    expect(queue.requeueExpired(1100)).toBe(0); // the lease ends at 1100, not before
    expect(queue.requeueExpired(1101)).toBe(1);
    expect(queue.get(queued.id)).toMatchObject({
      status: 'queued',
      error: 'the render stopped before finishing (its lease expired)',
    });
    const again = queue.claim('new-worker', 1200, 1000)!;
    expect(again).toMatchObject({ id: queued.id, attempts: 2 });
    expect(queue.complete(queued.id, 'crashed-worker', 1300, { fileId: 'x', pages: 1, bytes: 1 })).toBe(false);
  });
});

interface DeliveryRow {
  event_id: string;
  job_id: string;
  endpoint_id: string;
  body: string;
  status: string;
}
const deliveryRows = (jobId?: string) =>
  db
    .prepare(
      `SELECT event_id, job_id, endpoint_id, body, status FROM webhook_deliveries ${jobId ? 'WHERE job_id = ?' : ''} ORDER BY id`,
    )
    .all(...(jobId ? [jobId] : [])) as DeliveryRow[];

describe('webhook events', () => {
  // PDF_RENDERED for every endpoint with the completion: the store contract suite (both backends).

  it('queues RENDER_PDF_FAILED only after the last attempt', () => {
    webhookEndpoints(db).add('http://127.0.0.1:9/a', 1);
    const queued = queue.enqueue(job({ identifier: 'doomed', maxAttempts: 2, now: 0 }));
    queue.claim('w', 10, 1000);
    expect(queue.fail(queued.id, 'w', 20, renderFailure('crash'), 30)).toBe('queued');
    expect(deliveryRows()).toEqual([]);
    queue.claim('w', 30, 1000);
    expect(queue.fail(queued.id, 'w', 40, renderFailure('crash again'), 50)).toBe('failed');
    expect(deliveryRows(queued.id).map((row) => row.body)).toEqual([
      `{"type":"RENDER_PDF_FAILED","payload":{"id":"doomed","jobId":"${queued.id}","error":"crash again","errorCode":"RENDER_PDF_FAILED"}}`,
    ]);
  });

  it('queues RENDER_PDF_FAILED for a job whose last lease ran out', () => {
    webhookEndpoints(db).add('http://127.0.0.1:9/a', 1);
    const queued = queue.enqueue(job({ identifier: 'killed', maxAttempts: 1, now: 0 }));
    queue.claim('crashed-worker', 100, 1000);
    expect(queue.requeueExpired(1101)).toBe(1);
    expect(queue.get(queued.id)).toMatchObject({ status: 'failed', finishedAt: 1101 });
    expect(deliveryRows(queued.id).map((row) => JSON.parse(row.body))).toEqual([
      {
        type: 'RENDER_PDF_FAILED',
        payload: {
          id: 'killed',
          jobId: queued.id,
          error: 'the render stopped before finishing (its lease expired)',
          errorCode: 'RENDER_PDF_FAILED',
        },
      },
    ]);
  });

  it('writes the final status and its deliveries together: when the deliveries cannot be written, the job stays as it was', () => {
    webhookEndpoints(db).add('http://127.0.0.1:9/a', 1);
    const done = queue.enqueue(job({ maxAttempts: 1 }));
    const failing = queue.enqueue(job({ maxAttempts: 1 }));
    const expiring = queue.enqueue(job({ maxAttempts: 1 }));
    for (const holder of ['a', 'b', 'c']) queue.claim(holder, 2_000_000, 1000);
    // A real failure inside the transaction, after the job row was updated.
    db.exec(
      "CREATE TEMP TRIGGER no_deliveries BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    );
    expect(() => queue.complete(done.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 })).toThrow('disk full');
    expect(() => queue.fail(failing.id, 'b', 2_000_100, renderFailure('crash'), 0)).toThrow('disk full');
    expect(() => queue.requeueExpired(2_002_000)).toThrow('disk full');
    for (const { id } of [done, failing, expiring])
      expect(queue.get(id)).toMatchObject({ status: 'rendering', finishedAt: null });
    db.exec('DROP TRIGGER no_deliveries');
    expect(queue.complete(done.id, 'a', 2_000_100, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
    expect(deliveryRows(done.id)).toHaveLength(1);
  });
});

describe('sweep', () => {
  it('deletes finished jobs, identifiers and settled deliveries past retention, and keeps the rest', () => {
    const endpoint = webhookEndpoints(db).add('http://127.0.0.1:9/a', 1);
    const outbox = deliveries(db);
    const finish = (identifier: string, at: number, outcome: 'succeeded' | 'failed') => {
      const queued = queue.enqueue(job({ identifier, now: at, maxAttempts: 1 }));
      queue.claim(`w-${identifier}`, at, 1000);
      if (outcome === 'succeeded')
        queue.complete(queued.id, `w-${identifier}`, at, { fileId: `f-${identifier}`, pages: 1, bytes: 1 });
      else queue.fail(queued.id, `w-${identifier}`, at, renderFailure('crash'), at);
      return queued.id;
    };
    const oldDelivered = finish('old-ok', 1_000, 'succeeded');
    const oldFailed = finish('old-failed', 2_000, 'failed');
    const oldUndelivered = finish('old-pending', 3_000, 'succeeded');
    const recent = finish('recent', 50_000, 'succeeded');
    const stillQueued = queue.enqueue(job({ identifier: 'waiting', now: 4_000 })).id;
    // Settle the deliveries of the old jobs, all but one.
    for (const delivery of outbox.claim(60_000, 10, 1000)) {
      if (delivery.jobId === oldDelivered || delivery.jobId === recent) outbox.succeeded(delivery.id, 200, 60_000);
      else if (delivery.jobId === oldFailed) outbox.abandon(delivery.id, 410, 'gone');
    }
    expect(deliveryRows()).toHaveLength(4);

    queue.sweep(2_500, 10_000);

    expect(queue.get(oldDelivered)).toBeNull();
    expect(queue.get(oldFailed)).toBeNull();
    expect(queue.get(oldUndelivered)).toBeNull();
    expect(queue.get(recent)).toMatchObject({ status: 'succeeded' });
    expect(queue.get(stillQueued)).toMatchObject({ status: 'queued' }); // never swept, however old
    // A delivery still being retried outlives its job's row; the settled ones of swept jobs go.
    expect(deliveryRows().map((row) => [row.job_id, row.endpoint_id, row.status])).toEqual([
      [oldUndelivered, endpoint.id, 'pending'],
      [recent, endpoint.id, 'delivered'],
    ]);
    // Identifiers seen up to 2_500 may be used again; later ones are still remembered.
    const identifiers = (
      db.prepare('SELECT identifier FROM identifiers ORDER BY identifier').all() as Array<{ identifier: string }>
    ).map((row) => row.identifier);
    expect(identifiers).toEqual(['old-pending', 'recent', 'waiting']);
    expect(queue.enqueue(job({ identifier: 'old-ok', now: 60_000 })).status).toBe('queued');
  });

  it('lets events held for a disabled endpoint expire with their jobs, and says how many', () => {
    const endpoints = webhookEndpoints(db);
    const gone = endpoints.add('http://127.0.0.1:9/gone', 1);
    endpoints.disable(gone.id, 2);
    const finish = (identifier: string, at: number) => {
      const queued = queue.enqueue(job({ identifier, now: at }));
      queue.claim('w', at, 1000);
      queue.complete(queued.id, 'w', at, { fileId: `f-${identifier}`, pages: 1, bytes: 1 });
      return queued.id;
    };
    const old = finish('old', 1_000);
    const recent = finish('recent', 50_000);
    expect(deliveryRows().map((row) => row.status)).toEqual(['held', 'held']);
    // Held deliveries of jobs still kept are never swept, however many sweeps run.
    expect(queue.sweep(0, 500)).toEqual({ heldExpired: 0 });
    expect(queue.sweep(0, 10_000)).toEqual({ heldExpired: 1 });
    expect(queue.get(old)).toBeNull();
    expect(deliveryRows().map((row) => [row.job_id, row.status])).toEqual([[recent, 'held']]);
    expect(endpoints.list()[0]!.held).toBe(1);
  });
});
