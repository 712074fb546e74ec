/**
 * The webhook delivery store on a real SQLite file: the per-endpoint cap of the claim, redelivery
 * that leaves an attempt in flight alone, the Retry-After ceiling, and the failed-only log.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { maxRetryAfterMs } from '../src/store/delivery-retry.js';
import { openDb, type Db } from '../src/store/sqlite/open-db.js';
import { redeliveries } from '../src/store/sqlite/redeliver.js';
import { webhookEndpoints } from '../src/store/sqlite/webhook-endpoints.js';
import { removeTempDirs, tempDir } from './support/files.js';
import type { Deliveries, Sync, WebhookEndpoint } from '../src/store/contract.js';
import { webhookEvent } from '../src/server/api/job-event.js';

afterAll(removeTempDirs);

let db: Db;
let outbox: Sync<Deliveries>;
let slow: WebhookEndpoint;
let fast: WebhookEndpoint;
/** Redeliver a job straight from the store. */
let redeliver: (jobId: string, now: number) => unknown;

beforeEach(async () => {
  db = openDb(join(await tempDir(), 'pdfrender.db'));
  outbox = deliveries(db);
  const endpoints = webhookEndpoints(db);
  slow = endpoints.add('http://127.0.0.1:9/slow', 1);
  fast = endpoints.add('http://127.0.0.1:9/fast', 2);
  redeliver = redeliveries(db, webhookEvent).redeliver;
  return () => db.close();
});

const row = (id: number) =>
  db
    .prepare('SELECT status, attempts, next_attempt_at, claimed_until FROM webhook_deliveries WHERE id = ?')
    .get(id) as Record<string, unknown>;

describe('hold', () => {
  it('holds a delivery while its endpoint is disabled, and makes it due now when the endpoint was enabled meanwhile', () => {
    const insert = db.prepare(
      "INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, 'job', ?, '{}', 'pending', 0, 0)",
    );
    const onSlow = Number(insert.run('e-slow', slow.id).lastInsertRowid);
    const onFast = Number(insert.run('e-fast', fast.id).lastInsertRowid);
    outbox.claim(1_000, 32, 5_000, 4, {});
    webhookEndpoints(db).disable(slow.id, 1_500);
    // The sender saw both endpoints disabled; fast was enabled again before it wrote the hold.
    outbox.hold(onSlow, 2_000, { status: 410, error: 'gone' });
    outbox.hold(onFast, 2_000);
    expect(row(onSlow)).toMatchObject({ status: 'held', attempts: 1, claimed_until: null });
    expect(row(onFast)).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: 2_000, claimed_until: null });
  });
});

describe('claim', () => {
  it('takes at most `perEndpoint` per endpoint, counting those in flight, in due order', () => {
    // The slow endpoint's deliveries are all due first.
    for (let i = 0; i < 10; i += 1)
      db.prepare(
        "INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, 'job', ?, '{}', 'pending', ?, 0)",
      ).run(`e${i}`, slow.id, i);
    for (let i = 0; i < 10; i += 1)
      db.prepare(
        "INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, 'job', ?, '{}', 'pending', ?, 0)",
      ).run(`f${i}`, fast.id, 100 + i);
    const first = outbox.claim(1_000, 32, 5_000, 4, {});
    expect(first.map((d) => [d.endpointId, d.eventId])).toEqual([
      ...['e0', 'e1', 'e2', 'e3'].map((e) => [slow.id, e]),
      ...['f0', 'f1', 'f2', 'f3'].map((e) => [fast.id, e]),
    ]);
    // With the slow endpoint's four still in flight, only the fast one gets more.
    const second = outbox.claim(1_000, 32, 5_000, 4, { [slow.id]: 4, [fast.id]: 1 });
    expect(second.map((d) => d.eventId)).toEqual(['f4', 'f5', 'f6']);
    expect(row(first[0]!.id)).toMatchObject({ next_attempt_at: 6_000, claimed_until: 6_000 });
  });
});

describe('redeliver', () => {
  it('sends settled deliveries again but leaves one in flight alone, so it is not sent twice', () => {
    outbox.queueEvent('job_1', { type: 'PDF_RENDERED' }, 1_000);
    const [toSlow, toFast] = outbox.claim(1_000, 10, 20_000);
    outbox.succeeded(toFast!.id, 200, 1_100);
    // toSlow is still in flight (held until 21_000).
    expect(redeliver('job_1', 2_000)).toMatchObject({ queued: 1, created: 0, inFlight: 1 });
    expect(row(toFast!.id)).toMatchObject({ status: 'pending', attempts: 0, next_attempt_at: 2_000 });
    expect(outbox.claim(2_000, 10, 20_000).map((d) => d.id)).toEqual([toFast!.id]);
    // The in-flight attempt finishes as it would have; nothing claimed it a second time meanwhile.
    outbox.succeeded(toSlow!.id, 200, 3_000);
    expect(row(toSlow!.id)).toMatchObject({ status: 'delivered', attempts: 1, claimed_until: null });
    // Once settled, both may be sent again.
    outbox.succeeded(toFast!.id, 200, 3_000);
    expect(redeliver('job_1', 4_000)).toMatchObject({ queued: 2, inFlight: 0 });
  });

  it('says so when every delivery of the job is being sent right now', () => {
    outbox.queueEvent('job_1', {}, 1_000);
    outbox.claim(1_000, 10, 20_000);
    expect(redeliver('job_1', 2_000)).toEqual({
      outcome: 'done',
      queued: 0,
      created: 0,
      inFlight: 2,
      heldFor: [],
      active: 2,
    });
    expect(redeliver('job_unknown', 2_000)).toEqual({ outcome: 'no-such-job' });
  });

  it('resends an attempt whose sender died (its hold ran out), and a delivery waiting for its next attempt', () => {
    outbox.queueEvent('job_1', {}, 1_000);
    const [dead, waiting] = outbox.claim(1_000, 10, 20_000);
    outbox.failed(waiting!, 500, 'the receiver answered 500', 1_500);
    expect(redeliver('job_1', 30_000)).toMatchObject({ queued: 2, inFlight: 0 });
    expect(outbox.claim(30_000, 10, 20_000).map((d) => d.id)).toEqual([dead!.id, waiting!.id]);
  });
});

describe('failed', () => {
  it("honours a receiver's Retry-After when longer than the schedule, up to 10 h", () => {
    outbox.queueEvent('job_1', {}, 0);
    const [a, b] = outbox.claim(0, 10, 20_000);
    outbox.failed(a!, 503, 'the receiver answered 503', 1_000, 60_000);
    expect(row(a!.id)).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: 61_000, claimed_until: null });
    outbox.failed(b!, 503, 'the receiver answered 503', 1_000, 30 * 86_400_000);
    expect(row(b!.id)).toMatchObject({ next_attempt_at: 1_000 + maxRetryAfterMs });
    expect(maxRetryAfterMs).toBe(10 * 3_600_000);
  });
});

describe('log', () => {
  it('lists only failed deliveries, newest first, up to the limit, however many others there are', () => {
    for (let i = 0; i < 300; i += 1) outbox.queueEvent(`job_${i}`, {}, i);
    const claimed = outbox.claim(1_000, 1_000, 20_000);
    for (const delivery of claimed) {
      if (['job_3', 'job_150', 'job_299'].includes(delivery.jobId) && delivery.endpointId === fast.id)
        outbox.abandon(delivery.id, 410, 'gone');
      else outbox.succeeded(delivery.id, 200, 1_000);
    }
    expect(outbox.log(2, true).map((entry) => [entry.jobId, entry.status])).toEqual([
      ['job_299', 'failed'],
      ['job_150', 'failed'],
    ]);
    expect(outbox.log(50, true)).toHaveLength(3);
    const newest = outbox.log(5);
    expect(newest).toHaveLength(5);
    expect(newest.every((entry) => entry.status === 'delivered' || entry.jobId === 'job_299')).toBe(true);
  });
});
