/**
 * The async job queue in PostgreSQL, with the SQLite queue's semantics (sqlite/jobs.ts) when several
 * instances share it. A claim is one UPDATE of the next ready job picked FOR UPDATE SKIP LOCKED:
 * two instances never take the same job and never wait on each other's. Enqueues take one
 * transaction-level advisory lock (inside one database function, so it is never held across a round
 * trip), so the dedupe check and the queue bounds see every enqueue
 * before them (the same identifier at two instances at once: one job). Every write to a claimed
 * job names its holder (fencing), and a job's final status and its webhook deliveries are one
 * transaction.
 */
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { isPdfRenderError, PdfRenderError } from '../../errors.js';
import { enqueueRefusal, type EnqueueFigures, type EnqueueVerdict } from '../enqueue-rules.js';
import { finishedJob, type FinishedJobRow } from '../job-events.js';
import { leaseExpiredError, queuedJob } from '../job-records.js';
import { isStorageFault } from '../storage-errors.js';
import type {
  EnqueueInput,
  JobError,
  JobEventBuilder,
  JobFailures,
  JobQueue,
  JobResult,
  JobStatus,
  QueueOverview,
  ExpiredJob,
} from '../contract.js';
import { postgresDialect } from '../statements/dialect.js';
import { completeParams, failParams, jobStatements, newJob, toJob, type JobRow } from '../statements/jobs.js';
import { queueEvent } from './deliveries.js';
import { ownerOfCaller } from '../owners.js';
import { afterLostAnswer } from './lost-answer.js';
import { named } from './named.js';
import { changes, connect, locks, query, row, rows, sessionOf, transaction, type Sql } from './sql.js';

const statements = jobStatements(postgresDialect);

/** What pdfrender_enqueue_v3 answers (schema.ts): the verdict of enqueue-rules.ts, or late (past its deadline: nothing queued), and the figures it read. */
interface EnqueueRow {
  verdict: EnqueueVerdict | 'late';
  seen_at: number | null;
  jobs: number;
  bytes: number;
  caller_jobs: number;
  caller_bytes: number;
  /** With 'retry': the job the same request queued within the window. */
  replay_of: string | null;
}

/** The figures an enqueue's verdict was reached on, as enqueue-rules.ts names them. */
const figuresOf = (held: EnqueueRow): EnqueueFigures => ({
  seenAt: held.seen_at,
  jobs: held.jobs,
  bytes: held.bytes,
  callerJobs: held.caller_jobs,
  callerBytes: held.caller_bytes,
});

/** pg's default when a pool sets no query timeout (postgresPool always sets one). */
const defaultQueryTimeoutMs = 30_000;

/** The answer when the database cannot say whether an enqueue queued its job; `leftMs` is what is left of the identifier's window. */
function outcomeUnknown(leftMs: number, cause: unknown): PdfRenderError {
  return new PdfRenderError(
    'OUTCOME_UNKNOWN',
    `the database stopped answering after the request reached it, so whether the job was queued is not known; send the same request with the same identifier again within ${Math.max(0, Math.floor(leftMs / 1000))} s: if the job was queued, the answer is that job (202), else it is queued then`,
    { cause, retryAfter: 5 },
  );
}

/** Record a failed attempt by `worker` in `tx`; after the last, queue the failure event (made by `eventOf`). Null when `worker` does not hold the job. */
async function settle(
  tx: Sql,
  eventOf: JobEventBuilder,
  id: string,
  worker: string | null,
  now: number,
  error: JobError,
  retryAt: number | null,
): Promise<JobStatus | null> {
  const settled = await row<FinishedJobRow>(tx, ...named(statements.fail, failParams(id, worker, now, error, retryAt)));
  if (!settled) return null;
  if (settled.status === 'failed')
    await queueEvent(tx, id, eventOf(finishedJob(settled)), now, ownerOfCaller(settled.caller));
  return settled.status as JobStatus;
}

/**
 * The job queue in the database of `pool`; `eventOf` makes a finished job's webhook event. With `clock` (the database's, as the server has it),
 * each enqueue carries a deadline past which the database queues nothing; without (tests that
 * give their own times), a lost answer is settled by the sending session's end alone.
 */
export function postgresJobQueue(pool: pg.Pool, eventOf: JobEventBuilder, clock?: Clock): JobQueue {
  return {
    async enqueue(input: EnqueueInput) {
      const job = newJob(input);
      const { id, requestBytes } = job;
      const { bounds } = input;
      // Refused here, nothing was sent: the fault is the answer.
      const { client, release } = await connect(pool);
      // Counted from the send: the instance stops waiting for the answer after the pool's query
      // timeout, and past it the database queues nothing.
      const deadline = clock ? clock.now() + (pool.options.query_timeout ?? defaultQueryTimeoutMs) : null;
      let held: EnqueueRow;
      try {
        // One round trip: the lock, the dedupe and bound reads and the inserts run in the database (schema.ts).
        held = (await row<EnqueueRow>(
          client,
          ...named(
            `SELECT * FROM pdfrender_enqueue_v3(:id, :caller, :identifier, :priority, :request, :requestBytes, :baseUrl, :maxAttempts,
               :now, :dedupeWindowMs, :maxQueue, :maxQueueBytes, :maxQueuePerCaller, :maxQueueBytesPerCaller, :digest, :deadline,
               :traceContext)`,
            {
              ...job,
              dedupeWindowMs: input.dedupeWindowMs,
              // Picked, not spread: the server passes its whole configuration as the bounds.
              maxQueue: bounds.maxQueue,
              maxQueueBytes: bounds.maxQueueBytes,
              maxQueuePerCaller: bounds.maxQueuePerCaller,
              maxQueueBytesPerCaller: bounds.maxQueueBytesPerCaller,
              deadline,
            },
          ),
        ))!;
        release();
      } catch (error) {
        release(true);
        // A refusal the database sent (a lock wait past lock_timeout, a conflict) rolled the enqueue
        // back; only a connection that broke or went silent leaves the outcome open.
        if (!isPdfRenderError(error, 'STORAGE_UNAVAILABLE')) throw error;
        const outcome = await afterLostAnswer(pool, { jobId: id, session: sessionOf(client), deadline });
        if (outcome === 'queued') return queuedJob(id, input);
        if (outcome === 'not queued') throw error;
        throw outcomeUnknown(input.now + input.dedupeWindowMs - (clock?.now() ?? input.now), error);
      }
      if (held.verdict === 'late') {
        throw new PdfRenderError(
          'STORAGE_UNAVAILABLE',
          'the request reached the database after this server had stopped waiting for it; nothing was queued',
          {
            retryAfter: 5,
          },
        );
      }
      if (held.verdict === 'retry') {
        const original = await row<JobRow>(pool, ...named(statements.get, { id: held.replay_of })).catch(
          (error: unknown) => {
            // Queued before, so this 503 must not read as "nothing was queued" alone.
            if (!isStorageFault(error)) throw error;
            throw new PdfRenderError(
              'STORAGE_UNAVAILABLE',
              'this request queued nothing new: the same request queued its job before, but the database stopped answering before that job could be read; send it again to be told that job',
              { cause: error, retryAfter: 5 },
            );
          },
        );
        if (original) return toJob(original);
        // Swept between the two statements (a retention shorter than the window): a duplicate, as it would be now.
        throw enqueueRefusal('duplicate', figuresOf(held), input, requestBytes);
      }
      if (held.verdict !== 'queued') throw enqueueRefusal(held.verdict, figuresOf(held), input, requestBytes);
      // The row as the function wrote it (not read back: another instance could have claimed it already).
      return queuedJob(id, input);
    },

    async claim(worker: string, now: number, leaseMs: number) {
      // SKIP LOCKED: a job another instance is taking right now is passed over, not waited for.
      const claimed = await row<JobRow>(pool, ...named(statements.claim, { worker, now, leaseUntil: now + leaseMs }));
      return claimed ? toJob(claimed) : null;
    },

    heartbeat: async (id: string, worker: string, leaseUntil: number) =>
      (await changes(pool, ...named(statements.heartbeat, { id, worker, leaseUntil }))) > 0,

    complete: (id: string, worker: string, now: number, result: JobResult) =>
      transaction(
        pool,
        async (tx) => {
          const done = await row<FinishedJobRow>(
            tx,
            ...named(statements.complete, completeParams(id, worker, now, result)),
          );
          if (done) {
            await queueEvent(tx, id, eventOf(finishedJob(done)), now, ownerOfCaller(done.caller));
            return true;
          }
          // A completion tried again after its commit's answer was lost (the connection dropped) finds
          // its own result there: done, not taken over (the worker would otherwise drop the PDF it names).
          const already = await row<{ file_id: string | null }>(
            tx,
            "SELECT file_id FROM jobs WHERE id = $1 AND status = 'succeeded'",
            [id],
          );
          return already?.file_id === result.fileId;
        },
        locks.webhookWrite,
      ),

    fail: (id: string, worker: string, now: number, error: JobError, retryAt: number | null) =>
      transaction(pool, (tx) => settle(tx, eventOf, id, worker, now, error, retryAt), locks.webhookWrite),

    release: async (id: string, worker: string, availableAt: number) =>
      (await changes(pool, ...named(statements.release, { id, worker, availableAt }))) > 0,

    requeueExpired: (now: number, inHand: string[] = []) =>
      transaction(
        pool,
        async (tx) => {
          // SKIP LOCKED: another instance settling the same expired job now counts it, this one does not.
          const expired = await rows<Omit<ExpiredJob, 'status'> & { claimedBy: string }>(
            tx,
            ...named(statements.expired, { now, inHand: postgresDialect.list(inHand) }),
          );
          const sent: ExpiredJob[] = [];
          for (const { claimedBy, ...job } of expired) {
            const status = await settle(tx, eventOf, job.id, claimedBy, now, leaseExpiredError, now);
            if (status) sent.push({ ...job, status });
          }
          return sent;
        },
        locks.webhookWrite,
      ),

    async get(id: string) {
      const found = await row<JobRow>(pool, ...named(statements.get, { id }));
      return found ? toJob(found) : null;
    },

    // Under the shared webhook lock, beside the other writers of deliveries, never during an endpoint change.
    sweep: (identifiersBefore: number, jobsBefore: number) =>
      transaction(
        pool,
        async (tx) => {
          await query(tx, ...named(statements.forgetIdentifiers, { before: identifiersBefore }));
          const heldExpired = await changes(tx, ...named(statements.expireHeld, { before: jobsBefore }));
          await query(tx, ...named(statements.dropFinished, { before: jobsBefore }));
          await query(tx, ...named(statements.dropDeliveries));
          return { heldExpired };
        },
        locks.webhookWrite,
      ),

    // Two statements at once on two connections (one round trip of time): each a count of its own, so
    // a job claimed between them may be counted in both, once in a while, for one scrape.
    async overview(now: number): Promise<QueueOverview> {
      const [queued, rendering] = await Promise.all([
        rows<QueueOverview['queued'][number]>(pool, ...named(statements.queuedByPriority, { now })),
        row<{ count: number }>(pool, statements.rendering),
      ]);
      return { queued, rendering: rendering!.count };
    },

    failures: (since: number) => rows<JobFailures>(pool, ...named(statements.failures, { since })),
  };
}
