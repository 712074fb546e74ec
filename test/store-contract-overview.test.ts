/**
 * The Store contract, third part, against both backends: what an operator reads (issue 32): the
 * queue by priority and the jobs rendering, the failures by code, each endpoint's deliveries; and
 * the trace context a job keeps and its deliveries carry. The queue's overview is read at every
 * metrics scrape by every instance, so its plan is checked to read an index at 100,000 queued jobs.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { webhookEvent } from '../src/server/api/job-event.js';
import type { JobError, Store } from '../src/store/contract.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import { postgresMigrations } from '../src/store/postgres/schema.js';
import { migrations, openDb } from '../src/store/sqlite/open-db.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { jobStatements } from '../src/store/statements/jobs.js';
import { postgresDialect, sqliteDialect } from '../src/store/statements/dialect.js';
import { enqueueInput as job } from './support/enqueue-input.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { backends, emptyDatabase, poolOn, stopPostgres, type Opened } from './support/store-backends.js';

afterAll(async () => {
  await stopPostgres();
  await removeTempDirs();
});

const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const failure = (code: JobError['code'], message: string): JobError => ({ code, message });

describe.each(backends)('$name store: overview and trace context', (backend) => {
  let opened: Opened;
  let store: Store;
  beforeEach(async () => {
    opened = await backend.open();
    store = opened.store;
    return () => opened.close();
  });

  it("keeps a job's trace context as given, and answers it with the job; none is null", async () => {
    const traced = await store.queue.enqueue(job({ identifier: 'traced', traceContext: traceparent }));
    const plain = await store.queue.enqueue(job({ identifier: 'plain' }));
    expect(traced.traceContext).toBe(traceparent);
    expect(plain.traceContext).toBeNull();
    expect(await store.queue.get(traced.id)).toEqual(traced);
    expect(await store.queue.get(plain.id)).toEqual(plain);
    // The same request again answers the job it queued, with its trace context (not the retry's).
    const again = await store.queue.enqueue(
      job({ identifier: 'traced', traceContext: '00-11111111111111111111111111111111-2222222222222222-01' }),
    );
    expect(again).toEqual(traced);
    const claimed = await store.queue.claim('w', 1_000_001, 60_000);
    expect(claimed).toMatchObject({ id: traced.id, traceContext: traceparent });
    // A refused enqueue leaves no trace context anywhere.
    await store.queue
      .enqueue(job({ identifier: 'plain', request: { htmlContent: 'other' }, traceContext: traceparent }))
      .catch(() => undefined);
    expect(await opened.sql('SELECT id FROM jobs WHERE trace_context IS NOT NULL')).toEqual([{ id: traced.id }]);
  });

  it('gives a claimed delivery the time it was made and its job trace context (null once the job row is gone)', async () => {
    await store.webhooks.add('http://127.0.0.1:9/hook', 1);
    const queued = await store.queue.enqueue(job({ traceContext: traceparent }));
    await store.queue.claim('w', 1_000_000, 60_000);
    expect(await store.queue.complete(queued.id, 'w', 1_005_000, { fileId: 'f', pages: 1, bytes: 1 })).toBe(true);
    await store.deliveries.queueEvent('job_gone', { n: 1 }, 1_006_000);
    const claimed = await store.deliveries.claim(1_010_000, 10, 1_000);
    expect(claimed.map((d) => [d.jobId, d.createdAt, d.traceContext])).toEqual([
      [queued.id, 1_005_000, traceparent],
      ['job_gone', 1_006_000, null],
    ]);
    await opened.sql('DELETE FROM jobs WHERE id = ?', queued.id);
    expect((await store.deliveries.claim(1_020_000, 10, 1_000))[0]).toMatchObject({
      jobId: queued.id,
      createdAt: 1_005_000,
      traceContext: null,
    });
  });

  it('counts queued jobs by priority (how many ready, the oldest) and those rendering', async () => {
    expect(await store.queue.overview(1_000_000)).toEqual({ queued: [], rendering: 0 });
    await store.queue.enqueue(job({ priority: 0, now: 500_000 }));
    await store.queue.enqueue(job({ priority: 0, now: 900_000 }));
    await store.queue.enqueue(job({ priority: 5, now: 800_000 }));
    await store.queue.enqueue(job({ priority: 5, now: 950_000 }));
    await store.queue.enqueue(job({ priority: 5, now: 990_000 }));
    // One of priority 5 renders; its failure sends it back to wait until 2,000,000: queued, not ready.
    const taken = (await store.queue.claim('w', 1_000_000, 60_000))!;
    expect(taken.priority).toBe(5);
    expect(await store.queue.overview(1_000_000)).toEqual({
      queued: [
        { priority: 5, count: 2, oldestCreatedAt: 950_000, ready: 2 },
        { priority: 0, count: 2, oldestCreatedAt: 500_000, ready: 2 },
      ],
      rendering: 1,
    });
    await store.queue.fail(taken.id, 'w', 1_001_000, failure('RENDER_PDF_FAILED', 'x'), 2_000_000);
    expect(await store.queue.overview(1_001_000)).toEqual({
      queued: [
        { priority: 5, count: 3, oldestCreatedAt: 800_000, ready: 2 },
        { priority: 0, count: 2, oldestCreatedAt: 500_000, ready: 2 },
      ],
      rendering: 0,
    });
    expect((await store.queue.overview(2_000_000)).queued[0]).toMatchObject({ priority: 5, ready: 3 });
  });

  it('lists jobs failed for good since a time by code, the most recent first, with its error', async () => {
    const failAt = async (code: JobError['code'], message: string, at: number) => {
      const queued = await store.queue.enqueue(job({ now: at }));
      await store.queue.claim('w', at, 60_000);
      expect(await store.queue.fail(queued.id, 'w', at, failure(code, message), null)).toBe('failed');
    };
    await failAt('RENDER_PDF_FAILED', 'too old to count', 1_000);
    await failAt('RENDER_PDF_FAILED', 'the page took too long', 10_000);
    await failAt('BROWSER_BUSY', 'every page was busy', 11_000);
    await failAt('RENDER_PDF_FAILED', 'the page took longer still', 12_000);
    // A retry to come is no failure for good.
    const retried = await store.queue.enqueue(job({ now: 13_000 }));
    await store.queue.claim('w', 13_000, 60_000);
    expect(await store.queue.fail(retried.id, 'w', 13_000, failure('RENDER_PDF_FAILED', 'again'), 14_000)).toBe(
      'queued',
    );
    expect(await store.queue.failures(5_000)).toEqual([
      { code: 'RENDER_PDF_FAILED', count: 2, lastAt: 12_000, lastError: 'the page took longer still' },
      { code: 'BROWSER_BUSY', count: 1, lastAt: 11_000, lastError: 'every page was busy' },
    ]);
    expect(await store.queue.failures(12_001)).toEqual([]);
  });

  it('shows every endpoint with its deliveries by state, the oldest pending, the last delivered and the last error', async () => {
    const idle = await store.webhooks.add('http://127.0.0.1:9/idle', 1);
    const busy = await store.webhooks.add('http://127.0.0.1:9/busy', 2);
    for (let n = 0; n < 4; n += 1) await store.deliveries.queueEvent(`job_${n}`, { n }, 10_000 + n);
    // busy: 2 delivered, 1 to try again (500), 1 given up (404); idle: 4 delivered, then disabled and holding one.
    const first = await store.deliveries.claim(20_000, 10, 1_000);
    const of = (endpointId: string) => first.filter((d) => d.endpointId === endpointId);
    const [b0, b1, b2, b3] = of(busy.id);
    await store.deliveries.succeeded(b0!.id, 200, 21_000);
    await store.deliveries.succeeded(b1!.id, 204, 22_000);
    await store.deliveries.failed(b2!, 500, 'the receiver answered 500', 23_000);
    await store.deliveries.abandon(b3!.id, 404, 'the receiver answered 404');
    for (const d of of(idle.id)) await store.deliveries.succeeded(d.id, 200, 21_500);
    await store.webhooks.disable(idle.id, 24_000);
    await store.deliveries.queueEvent('job_4', {}, 25_000);

    const overview = await store.deliveries.overview(30_000);
    expect(overview).toEqual([
      {
        endpointId: idle.id,
        url: idle.url,
        owner: idle.owner,
        disabledAt: 24_000,
        pending: 0,
        held: 1,
        failed: 0,
        delivered: 4,
        oldestPendingCreatedAt: null,
        lastDeliveredAt: 21_500,
        lastError: null,
        lastStatus: null,
      },
      {
        endpointId: busy.id,
        url: busy.url,
        owner: busy.owner,
        disabledAt: null,
        pending: 2,
        held: 0,
        failed: 1,
        delivered: 2,
        oldestPendingCreatedAt: 10_002,
        lastDeliveredAt: 22_000,
        lastError: 'the receiver answered 404',
        lastStatus: 404,
      },
    ]);
    // Never the key or the secret.
    expect(JSON.stringify(overview)).not.toContain(busy.key);
    expect(JSON.stringify(overview)).not.toContain(busy.secret);
    const third = await store.webhooks.add('http://127.0.0.1:9/new', 3);
    expect((await store.deliveries.overview(30_000)).at(-1)).toMatchObject({
      endpointId: third.id,
      pending: 0,
      held: 0,
      failed: 0,
      delivered: 0,
      oldestPendingCreatedAt: null,
      lastDeliveredAt: null,
      lastError: null,
      lastStatus: null,
    });
  });

  // Queued jobs with a request of about 1 kB (finished ones have dropped theirs).
  it('reads the queue overview from indexes at 100,000 queued jobs (beside 100,000 finished)', async () => {
    const statements = jobStatements(backend.name === 'sqlite' ? sqliteDialect : postgresDialect);
    if (backend.name === 'sqlite') {
      await opened.sql(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
         INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at, finished_at)
         SELECT 'job_' || i, 'ip:x', 'id' || i, i % 3, CASE WHEN i % 2 = 0 THEN '{"htmlContent":"' || hex(zeroblob(500)) || '"}' END, 1000, 'http://x', CASE WHEN i % 2 = 0 THEN 'queued' ELSE 'succeeded' END,
                3, i, i, CASE WHEN i % 2 = 1 THEN i END FROM n`,
      );
      await opened.sql('ANALYZE');
      const plan = (text: string) =>
        opened
          .sql<{ detail: string }>(`EXPLAIN QUERY PLAN ${text.replace(/:now/g, '1')}`)
          .then((rows) => rows.map((r) => r.detail).join('\n'));
      expect(await plan(statements.queuedByPriority)).toMatch(/USING COVERING INDEX jobs_ready \(status=\?\)/);
      expect(await plan(statements.rendering)).toMatch(/USING COVERING INDEX jobs_\w+ \(status=\?/);
    } else {
      await opened.sql(
        `INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at, finished_at)
         SELECT 'job_' || i, 'ip:x', 'id' || i, i % 3, CASE WHEN i % 2 = 0 THEN '{"htmlContent":"' || repeat('x', 1000) || '"}' END, 1000, 'http://x', CASE WHEN i % 2 = 0 THEN 'queued' ELSE 'succeeded' END,
                3, i, i, CASE WHEN i % 2 = 1 THEN i END FROM generate_series(1, 200000) i`,
      );
      // As autovacuum leaves the pages of a backlog that sits: all visible, so an index alone answers.
      await opened.sql('VACUUM (FREEZE, ANALYZE) jobs');
      const plan = (text: string) =>
        opened
          .sql<{ 'QUERY PLAN': string }>(`EXPLAIN ${text.replace(/:now/g, '1')}`)
          .then((rows) => rows.map((r) => r['QUERY PLAN']).join('\n'));
      expect(await plan(statements.queuedByPriority)).toMatch(/Index Only Scan using jobs_queued/);
      expect(await plan(statements.rendering)).toMatch(/Index Only Scan using jobs_\w+/);
    }
    const overview = await store.queue.overview(1_000_000);
    expect(overview.queued.map((p) => [p.priority, p.count, p.ready])).toEqual([
      [2, 33_334, 33_334],
      [1, 33_333, 33_333],
      [0, 33_333, 33_333],
    ]);
  });
});

describe('a database of the schema before trace contexts and the overview, migrated', () => {
  const oldJob = `INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at)
     VALUES ('job_old', 'ip:x', 'old', 3, '{"htmlContent":"x"}', 19, 'http://x', 'queued', 3, 500, 500)`;
  const check = async (store: Store) => {
    expect(await store.queue.get('job_old')).toMatchObject({ priority: 3, traceContext: null });
    expect(await store.queue.overview(1_000)).toEqual({
      queued: [{ priority: 3, count: 1, oldestCreatedAt: 500, ready: 1 }],
      rendering: 0,
    });
    const queued = await store.queue.enqueue(job({ traceContext: traceparent }));
    expect(await store.queue.get(queued.id)).toMatchObject({ traceContext: traceparent });
  };

  it('on SQLite: its jobs have no trace context, and count', async () => {
    const path = join(await tempDir(), 'pdfrender.db');
    const old = new Database(path);
    for (const migration of migrations.slice(0, -1)) old.exec(migration);
    old.pragma(`user_version = ${migrations.length - 1}`);
    old.exec(oldJob);
    old.close();
    const db = openDb(path);
    try {
      await check(sqliteStore(db, webhookEvent));
    } finally {
      db.close();
    }
  });

  it('on PostgreSQL: the same', async () => {
    const pool = poolOn(await emptyDatabase());
    await migratePostgres(pool, postgresMigrations.slice(0, -1));
    await pool.query(oldJob);
    expect(await migratePostgres(pool)).toBe(postgresMigrations.length - 1);
    await check(postgresStore(pool, webhookEvent));
  });
});
