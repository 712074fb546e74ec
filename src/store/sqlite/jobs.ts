/**
 * The durable async job queue in SQLite. Every read-then-write runs in a BEGIN IMMEDIATE
 * transaction, so two servers on one data dir (or two requests at once) never both take the same
 * job or both accept the same identifier. A claimed job carries a lease; only its holder may
 * extend, complete or fail it, and a lease that runs out sends the job back to the queue.
 * A job's final status and its webhook deliveries are written in one transaction, so a crash
 * between the two cannot lose the event, and drops the job's request: nothing reads it after.
 */
import { randomBytes } from 'node:crypto';
import type { ErrorCode } from '../../errors.js';
import type {
  EnqueueInput,
  Job,
  JobError,
  JobEventBuilder,
  JobQueue,
  JobResult,
  JobStatus,
  Sync,
} from '../contract.js';
import { deliveries } from './deliveries.js';
import { leaseExpiredError, queuedJob } from '../job-records.js';
import { enqueueRefusal, judgeEnqueue, requestDigest } from '../enqueue-rules.js';
import { eventColumns, finishedJob, type FinishedJobRow } from '../job-events.js';
import type { Db } from './open-db.js';
import { queueHeld } from './queue-held.js';

interface JobRow {
  id: string;
  caller: string;
  identifier: string;
  priority: number;
  request: string | null;
  base_url: string;
  status: JobStatus;
  attempts: number;
  max_attempts: number;
  created_at: number;
  available_at: number;
  claimed_by: string | null;
  claimed_at: number | null;
  lease_until: number | null;
  finished_at: number | null;
  file_id: string | null;
  pages: number | null;
  bytes: number | null;
  error: string | null;
  error_code: ErrorCode | null;
  network: string | null;
}

const fromRow = (row: JobRow): Job => ({
  id: row.id,
  caller: row.caller,
  identifier: row.identifier,
  priority: row.priority,
  request: row.request === null ? null : JSON.parse(row.request),
  baseUrl: row.base_url,
  status: row.status,
  attempts: row.attempts,
  maxAttempts: row.max_attempts,
  createdAt: row.created_at,
  availableAt: row.available_at,
  claimedBy: row.claimed_by,
  claimedAt: row.claimed_at,
  leaseUntil: row.lease_until,
  finishedAt: row.finished_at,
  fileId: row.file_id,
  pages: row.pages,
  bytes: row.bytes,
  error: row.error,
  errorCode: row.error_code,
  network: row.network === null ? null : JSON.parse(row.network),
});

/** The job queue of a data dir; `eventOf` makes a finished job's webhook event. */
export function jobQueue(db: Db, eventOf: JobEventBuilder) {
  const outbox = deliveries(db);
  const seen = db.prepare<[string, string], { seen_at: number; request_digest: string | null; job_id: string | null }>(
    'SELECT seen_at, request_digest, job_id FROM identifiers WHERE caller = ? AND identifier = ?',
  );
  const remember = db.prepare(
    `INSERT INTO identifiers (caller, identifier, seen_at, request_digest, job_id) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (caller, identifier) DO UPDATE SET seen_at = excluded.seen_at, request_digest = excluded.request_digest, job_id = excluded.job_id`,
  );
  const held = queueHeld(db);
  const insert = db.prepare(
    `INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?)`,
  );
  const byId = db.prepare<[string], JobRow>('SELECT * FROM jobs WHERE id = ?');
  // One statement reads the row (and its request) once: the next ready job, taken, as it is then.
  const take = db.prepare<{ worker: string; now: number; leaseUntil: number }, JobRow>(
    `UPDATE jobs SET status = 'rendering', claimed_by = @worker, claimed_at = @now, lease_until = @leaseUntil, attempts = attempts + 1
     WHERE id = (SELECT id FROM jobs WHERE status = 'queued' AND available_at <= @now ORDER BY priority DESC, created_at, rowid LIMIT 1) RETURNING *`,
  );
  const extend = db.prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND claimed_by = ? AND status = 'rendering'");
  const succeed = db.prepare<[number, string, number, number, string | null, string, string], FinishedJobRow>(
    `UPDATE jobs SET status = 'succeeded', request = NULL, finished_at = ?, file_id = ?, pages = ?, bytes = ?, network = ?, error = NULL, error_code = NULL, lease_until = NULL
     WHERE id = ? AND claimed_by = ? AND status = 'rendering' RETURNING ${eventColumns}`,
  );
  const settleFailure = db.prepare(
    `UPDATE jobs SET
       status = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END,
       request = CASE WHEN attempts >= max_attempts THEN NULL ELSE request END,
       finished_at = CASE WHEN attempts >= max_attempts THEN ? ELSE NULL END,
       available_at = ?, error = ?, error_code = ?, lease_until = NULL, claimed_by = NULL
     WHERE id = ? AND claimed_by = ? AND status = 'rendering'`,
  );
  // A storage fault is not the document's: the job goes back without spending the attempt its claim counted.
  const giveBack = db.prepare<[number, string, string]>(
    "UPDATE jobs SET status = 'queued', attempts = attempts - 1, available_at = ?, lease_until = NULL, claimed_by = NULL WHERE id = ? AND claimed_by = ? AND status = 'rendering'",
  );
  // Jobs this process's workers still hold are theirs to settle, even past their lease: a write
  // lock held elsewhere, or a full disk, may have kept their heartbeats from landing.
  const expired = db.prepare<[number, string], JobRow>(
    "SELECT * FROM jobs WHERE status = 'rendering' AND lease_until < ? AND id NOT IN (SELECT value FROM json_each(?))",
  );
  const forgetIdentifiers = db.prepare<[number]>('DELETE FROM identifiers WHERE seen_at <= ?');
  const dropFinished = db.prepare<[number]>(
    "DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND finished_at <= ?",
  );
  const dropDeliveries = db.prepare<[]>(
    "DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND job_id NOT IN (SELECT id FROM jobs)",
  );
  // A held event lives as long as the job it tells of (whose file and status go at the same time):
  // this bounds what a disabled endpoint holds by what the jobs table holds.
  const expireHeld = db.prepare<[number]>(
    "UPDATE webhook_deliveries SET status = 'failed', last_error = 'held until its job passed the retention period; the endpoint was never enabled' WHERE status = 'held' AND created_at <= ?",
  );

  // The request is serialized and hashed before the transaction, which holds the write lock.
  const enqueue = db.transaction((input: EnqueueInput, request: string, digest: string): Job => {
    const requestBytes = Buffer.byteLength(request);
    const before = seen.get(input.caller, input.identifier);
    const sums = held(input.caller);
    const figures = {
      seenAt: before?.seen_at ?? null,
      ...sums.total,
      callerJobs: sums.caller.jobs,
      callerBytes: sums.caller.bytes,
    };
    // The job the same request queued, looked up only while the identifier's window lasts (a retry's only case).
    const within = before !== undefined && before.seen_at > input.now - input.dedupeWindowMs;
    const original =
      within && before.request_digest === digest && before.job_id !== null ? byId.get(before.job_id) : undefined;
    const verdict = judgeEnqueue(figures, original !== undefined, input, requestBytes);
    if (verdict === 'retry') return fromRow(original!);
    if (verdict !== 'queued') throw enqueueRefusal(verdict, figures, input, requestBytes);
    const id = `job_${randomBytes(12).toString('base64url')}`;
    remember.run(input.caller, input.identifier, input.now, digest, id);
    insert.run(
      id,
      input.caller,
      input.identifier,
      input.priority,
      request,
      requestBytes,
      input.baseUrl,
      input.maxAttempts,
      input.now,
      input.now,
    );
    return queuedJob(id, input);
  });

  const complete = db.transaction((id: string, worker: string, now: number, result: JobResult): boolean => {
    const done = succeed.get(
      now,
      result.fileId,
      result.pages,
      result.bytes,
      result.network ? JSON.stringify(result.network) : null,
      id,
      worker,
    );
    if (!done) return false;
    outbox.queueEvent(id, eventOf(finishedJob(done)), now);
    return true;
  });

  /** Record a failed attempt by `worker`; after the last, queue the failure event. */
  const settle = (
    id: string,
    worker: string | null,
    now: number,
    error: JobError,
    retryAt: number,
  ): JobStatus | null => {
    if (settleFailure.run(now, retryAt, error.message, error.code, id, worker).changes === 0) return null;
    const row = byId.get(id)!;
    if (row.status === 'failed') outbox.queueEvent(id, eventOf(finishedJob(row)), now);
    return row.status;
  };

  const fail = db.transaction(settle);

  const requeueExpired = db.transaction((now: number, inHand: string[]): number => {
    const rows = expired.all(now, JSON.stringify(inHand));
    for (const row of rows) settle(row.id, row.claimed_by, now, leaseExpiredError, now);
    return rows.length;
  });

  // One transaction: a sweep retried after meeting a lock (retrying-store.ts) starts from nothing done, so
  // its count of expired held events is whole.
  const sweep = db.transaction((identifiersBefore: number, jobsBefore: number) => {
    forgetIdentifiers.run(identifiersBefore);
    const heldExpired = expireHeld.run(jobsBefore).changes;
    dropFinished.run(jobsBefore);
    dropDeliveries.run();
    return { heldExpired };
  });

  return {
    enqueue: (input: EnqueueInput): Job => {
      const request = JSON.stringify(input.request);
      return enqueue.immediate(input, request, requestDigest(input.priority, request));
    },
    claim(worker: string, now: number, leaseMs: number): Job | null {
      // One statement, so no transaction of its own: it takes the write lock or meets it (DATABASE_BUSY) whole.
      const row = take.get({ worker, now, leaseUntil: now + leaseMs });
      return row ? fromRow(row) : null;
    },
    heartbeat: (id: string, worker: string, leaseUntil: number): boolean =>
      extend.run(leaseUntil, id, worker).changes > 0,
    complete: (id: string, worker: string, now: number, result: JobResult): boolean =>
      complete.immediate(id, worker, now, result),
    fail: (id: string, worker: string, now: number, error: JobError, retryAt: number): JobStatus | null =>
      fail.immediate(id, worker, now, error, retryAt),
    release: (id: string, worker: string, availableAt: number): boolean =>
      giveBack.run(availableAt, id, worker).changes > 0,
    requeueExpired: (now: number, inHand: string[] = []): number => requeueExpired.immediate(now, inHand),
    get: (id: string): Job | null => {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    sweep(identifiersBefore: number, jobsBefore: number): { heldExpired: number } {
      return sweep.immediate(identifiersBefore, jobsBefore);
    },
  } satisfies Sync<JobQueue>;
}
