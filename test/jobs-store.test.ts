/**
 * What only SQLite has to prove about the async queue: two connections to one database file (two
 * servers on one data dir) sending the same identifier at once give one job. Everything else the
 * queue promises (order, dedupe, bounds, leases, fencing, retries, the events written with a job's
 * final status, the sweep) is the contract's, proved on both backends in store-contract.test.ts.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobQueue, Sync } from '../src/store/contract.js';
import { jobQueue } from '../src/store/sqlite/jobs.js';
import { openDb, type Db } from '../src/store/sqlite/open-db.js';
import { webhookEvent } from '../src/server/api/job-event.js';
import { enqueueInput as job } from './support/enqueue-input.js';
import { removeTempDirs, tempDir } from './support/files.js';

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

describe('two connections to one database file', () => {
  it('accept exactly one of two different requests sending the same identifier at once, and answer the same request with one job', () => {
    const second = jobQueue(openDb(path), webhookEvent);
    const results = [queue, second].map((q, i) => {
      try {
        return q.enqueue(job({ identifier: 'same', request: { htmlContent: `<p>${i}</p>` } })).status;
      } catch (error) {
        return (error as { code: string }).code;
      }
    });
    expect(results.sort()).toEqual(['DUPLICATE_IDENTIFIER', 'queued']);
    const retried = [queue, second].map((q) => q.enqueue(job({ identifier: 'retried' })));
    expect(retried[1]!.id).toBe(retried[0]!.id);
  });
});
