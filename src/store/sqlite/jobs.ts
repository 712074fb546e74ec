/**
 * The durable async job queue in SQLite. Every read-then-write runs in a BEGIN IMMEDIATE
 * transaction, so two servers on one data dir (or two requests at once) never both take the same
 * job or both accept the same identifier. A claimed job carries a lease; only its holder may
 * extend, complete or fail it, and a lease that runs out sends the job back to the queue.
 * A job's final status and its webhook deliveries are written in one transaction, so a crash
 * between the two cannot lose the event, and drops the job's request: nothing reads it after.
 */
import type {
  EnqueueInput,
  Job,
  JobError,
  JobEventBuilder,
  JobQueue,
  JobResult,
  JobFailures,
  JobStatus,
  QueueOverview,
  Sync,
  ExpiredJob,
} from '../contract.js';
import { deliveries } from './deliveries.js';
import { leaseExpiredError, queuedJob } from '../job-records.js';
import { enqueueRefusal, judgeEnqueue } from '../enqueue-rules.js';
import { finishedJob, type FinishedJobRow } from '../job-events.js';
import { sqliteDialect } from '../statements/dialect.js';
import { completeParams, failParams, jobStatements, newJob, toJob, type JobRow } from '../statements/jobs.js';
import type { Db } from './open-db.js';
import { queueHeld } from './queue-held.js';
import { ownerOfCaller } from '../owners.js';

const statements = jobStatements(sqliteDialect);

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
  const insert = db.prepare<ReturnType<typeof newJob>>(
    `INSERT INTO jobs (id, caller, identifier, priority, request, request_bytes, base_url, status, max_attempts, created_at, available_at,
                       trace_context)
     VALUES (:id, :caller, :identifier, :priority, :request, :requestBytes, :baseUrl, 'queued', :maxAttempts, :now, :now, :traceContext)`,
  );
  const byId = db.prepare<{ id: string }, JobRow>(statements.get);
  const take = db.prepare<{ worker: string; now: number; leaseUntil: number }, JobRow>(statements.claim);
  const extend = db.prepare<{ id: string; worker: string; leaseUntil: number }>(statements.heartbeat);
  const succeed = db.prepare<ReturnType<typeof completeParams>, FinishedJobRow>(statements.complete);
  const settleFailure = db.prepare<ReturnType<typeof failParams>, FinishedJobRow>(statements.fail);
  const giveBack = db.prepare<{ id: string; worker: string; availableAt: number }>(statements.release);
  const expired = db.prepare<{ now: number; inHand: unknown }, Omit<ExpiredJob, 'status'> & { claimedBy: string }>(
    statements.expired,
  );
  const forgetIdentifiers = db.prepare<{ before: number }>(statements.forgetIdentifiers);
  const expireHeld = db.prepare<{ before: number }>(statements.expireHeld);
  const dropFinished = db.prepare<{ before: number }>(statements.dropFinished);
  const dropDeliveries = db.prepare<[]>(statements.dropDeliveries);
  const queuedByPriority = db.prepare<{ now: number }, QueueOverview['queued'][number]>(statements.queuedByPriority);
  const rendering = db.prepare<[], { count: number }>(statements.rendering);
  const failures = db.prepare<{ since: number }, JobFailures>(statements.failures);

  // The request is serialized and hashed before the transaction, which holds the write lock.
  const enqueue = db.transaction((input: EnqueueInput, job: ReturnType<typeof newJob>): Job => {
    const { requestBytes, digest } = job;
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
      within && before.request_digest === digest && before.job_id !== null
        ? byId.get({ id: before.job_id })
        : undefined;
    const verdict = judgeEnqueue(figures, original !== undefined, input, requestBytes);
    if (verdict === 'retry') return toJob(original!);
    if (verdict !== 'queued') throw enqueueRefusal(verdict, figures, input, requestBytes);
    remember.run(input.caller, input.identifier, input.now, digest, job.id);
    insert.run(job);
    return queuedJob(job.id, input);
  });

  const complete = db.transaction((id: string, worker: string, now: number, result: JobResult): boolean => {
    const done = succeed.get(completeParams(id, worker, now, result));
    if (!done) return false;
    outbox.queueEvent(id, eventOf(finishedJob(done)), now, ownerOfCaller(done.caller));
    return true;
  });

  /** Record a failed attempt by `worker`; after the last, queue the failure event. */
  const settle = (
    id: string,
    worker: string | null,
    now: number,
    error: JobError,
    retryAt: number | null,
  ): JobStatus | null => {
    const settled = settleFailure.get(failParams(id, worker, now, error, retryAt));
    if (!settled) return null;
    if (settled.status === 'failed')
      outbox.queueEvent(id, eventOf(finishedJob(settled)), now, ownerOfCaller(settled.caller));
    return settled.status as JobStatus;
  };

  const fail = db.transaction(settle);

  const requeueExpired = db.transaction((now: number, inHand: string[]): ExpiredJob[] =>
    expired.all({ now, inHand: sqliteDialect.list(inHand) }).flatMap(({ claimedBy, ...job }) => {
      const status = settle(job.id, claimedBy, now, leaseExpiredError, now);
      return status ? [{ ...job, status }] : [];
    }),
  );

  // One transaction: a sweep retried after meeting a lock (retrying-store.ts) starts from nothing done, so
  // its count of expired held events is whole.
  const sweep = db.transaction((identifiersBefore: number, jobsBefore: number) => {
    forgetIdentifiers.run({ before: identifiersBefore });
    const heldExpired = expireHeld.run({ before: jobsBefore }).changes;
    dropFinished.run({ before: jobsBefore });
    dropDeliveries.run();
    return { heldExpired };
  });

  // Two reads of one snapshot (WAL), so a job claimed between them is counted once.
  const overview = db.transaction((now: number): QueueOverview => ({
    queued: queuedByPriority.all({ now }),
    rendering: rendering.get()!.count,
  }));

  return {
    enqueue: (input: EnqueueInput): Job => enqueue.immediate(input, newJob(input)),
    claim(worker: string, now: number, leaseMs: number): Job | null {
      // One statement, so no transaction of its own: it takes the write lock or meets it (DATABASE_BUSY) whole.
      const row = take.get({ worker, now, leaseUntil: now + leaseMs });
      return row ? toJob(row) : null;
    },
    heartbeat: (id: string, worker: string, leaseUntil: number): boolean =>
      extend.run({ id, worker, leaseUntil }).changes > 0,
    complete: (id: string, worker: string, now: number, result: JobResult): boolean =>
      complete.immediate(id, worker, now, result),
    fail: (id: string, worker: string, now: number, error: JobError, retryAt: number | null): JobStatus | null =>
      fail.immediate(id, worker, now, error, retryAt),
    release: (id: string, worker: string, availableAt: number): boolean =>
      giveBack.run({ id, worker, availableAt }).changes > 0,
    requeueExpired: (now: number, inHand: string[] = []): ExpiredJob[] => requeueExpired.immediate(now, inHand),
    get: (id: string): Job | null => {
      const row = byId.get({ id });
      return row ? toJob(row) : null;
    },
    sweep(identifiersBefore: number, jobsBefore: number): { heldExpired: number } {
      return sweep.immediate(identifiersBefore, jobsBefore);
    },
    overview: (now: number): QueueOverview => overview(now),
    failures: (since: number): JobFailures[] => failures.all({ since }),
  } satisfies Sync<JobQueue>;
}
