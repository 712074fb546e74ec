/**
 * The async job queue on a real SQLite file: order, identifier dedupe (also across two
 * connections), queue bound, leases, fencing and retries.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { isPdfRenderError } from '../src/errors.js';
import { jobQueue, type EnqueueInput, type JobQueue } from '../src/store/jobs.js';
import { openDb, type Db } from '../src/store/open-db.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

let path: string;
let db: Db;
let queue: JobQueue;

beforeEach(async () => {
  path = join(await tempDir(), 'pdfrender.db');
  db = openDb(path);
  queue = jobQueue(db);
  return () => db.close();
});

const job = (overrides: Partial<EnqueueInput> = {}): EnqueueInput => ({
  caller: 'ip:127.0.0.1',
  identifier: `doc-${Math.random()}`,
  priority: 0,
  request: { htmlContent: '<p>x</p>' },
  baseUrl: 'http://127.0.0.1:3000',
  now: 1_000_000,
  dedupeWindowMs: 60_000,
  maxQueue: 100,
  maxAttempts: 3,
  ...overrides,
});

function refusal(input: EnqueueInput, q: JobQueue = queue): unknown {
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
    expect(queued).toMatchObject({ identifier: 'invoice-1', priority: 5, status: 'queued', attempts: 0, request: { htmlContent: '<p>x</p>' } });
    expect(queued.id).toMatch(/^job_[\w-]{16}$/);
    expect(queue.get(queued.id)).toEqual(queued);
  });

  it('refuses the same identifier from the same caller within the window, and takes it after', () => {
    queue.enqueue(job({ identifier: 'invoice-1' }));
    const duplicate = refusal(job({ identifier: 'invoice-1', now: 1_000_000 + 59_000 }));
    expect(isPdfRenderError(duplicate, 'DUPLICATE_IDENTIFIER')).toBe(true);
    expect((duplicate as Error).message).toContain('may be used again in 1 s');
    // Another caller may use the same identifier.
    expect(queue.enqueue(job({ identifier: 'invoice-1', caller: 'key:other', now: 1_000_000 + 59_000 })).status).toBe('queued');
    expect(queue.enqueue(job({ identifier: 'invoice-1', now: 1_000_000 + 60_000 })).status).toBe('queued');
  });

  it('accepts exactly one of two connections sending the same identifier at once', () => {
    const second = jobQueue(openDb(path));
    const results = [queue, second].map((q) => {
      try {
        return q.enqueue(job({ identifier: 'same' })).status;
      } catch (error) {
        return (error as { code: string }).code;
      }
    });
    expect(results.sort()).toEqual(['DUPLICATE_IDENTIFIER', 'queued']);
  });

  it('refuses new jobs when the queue is full', () => {
    queue.enqueue(job({ maxQueue: 2 }));
    queue.enqueue(job({ maxQueue: 2 }));
    const full = refusal(job({ maxQueue: 2 }));
    expect(isPdfRenderError(full, 'QUEUE_FULL')).toBe(true);
    expect((full as { retryAfter: number }).retryAfter).toBe(30);
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
    expect(claimed).toMatchObject({ id: queued.id, status: 'rendering', attempts: 1, claimedBy: 'worker-a', claimedAt: 2_000_000, leaseUntil: 2_030_000 });
    expect(queue.heartbeat(queued.id, 'worker-a', 2_060_000)).toBe(true);
    expect(queue.heartbeat(queued.id, 'worker-b', 2_090_000)).toBe(false);
    expect(queue.complete(queued.id, 'worker-b', 2_001_000, { fileId: 'f', pages: 1, bytes: 9 })).toBe(false);
    expect(queue.complete(queued.id, 'worker-a', 2_001_000, { fileId: 'f', pages: 2, bytes: 900 })).toBe(true);
    expect(queue.get(queued.id)).toMatchObject({ status: 'succeeded', fileId: 'f', pages: 2, bytes: 900, finishedAt: 2_001_000, leaseUntil: null });
  });

  it('retries a failed attempt later, and fails the job after its last attempt', () => {
    const queued = queue.enqueue(job({ maxAttempts: 2, now: 0 }));
    expect(queue.claim('w', 10, 1000)!.id).toBe(queued.id);
    expect(queue.fail(queued.id, 'w', 20, 'renderer crashed', 5000)).toBe('queued');
    expect(queue.claim('w', 4999, 1000)).toBeNull(); // not before its retry time
    expect(queue.claim('w', 5000, 1000)!.attempts).toBe(2);
    expect(queue.fail(queued.id, 'w', 5100, 'renderer crashed again', 9000)).toBe('failed');
    expect(queue.get(queued.id)).toMatchObject({ status: 'failed', attempts: 2, error: 'renderer crashed again', finishedAt: 5100 });
    expect(queue.fail(queued.id, 'w', 5200, 'late', 0)).toBeNull();
  });

  it('sends jobs whose lease ran out back to the queue, and a stale holder cannot complete them', () => {
    const queued = queue.enqueue(job({ now: 0 }));
    expect(queue.claim('crashed-worker', 100, 1000)!.id).toBe(queued.id);
    expect(queue.requeueExpired(1100)).toBe(0); // the lease ends at 1100, not before
    expect(queue.requeueExpired(1101)).toBe(1);
    expect(queue.get(queued.id)).toMatchObject({ status: 'queued', error: 'the render stopped before finishing (its lease expired)' });
    const again = queue.claim('new-worker', 1200, 1000)!;
    expect(again).toMatchObject({ id: queued.id, attempts: 2 });
    expect(queue.complete(queued.id, 'crashed-worker', 1300, { fileId: 'x', pages: 1, bytes: 1 })).toBe(false);
  });
});
