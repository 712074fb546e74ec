/**
 * The statements of the job queue (contract.ts JobQueue), one per operation for both stores. The
 * enqueue is each store's own: SQLite's reads and writes run in TypeScript within one IMMEDIATE
 * transaction (sqlite/jobs.ts), PostgreSQL's in one database function under an advisory lock
 * (postgres/schema.ts); both judge by enqueue-rules.ts.
 */
import { randomBytes } from 'node:crypto';
import type { EnqueueInput, Job, JobError, JobResult } from '../contract.js';
import { requestDigest } from '../enqueue-rules.js';
import { eventColumns } from '../job-events.js';
import type { Dialect } from './dialect.js';

/** The columns of a Job, named as its fields; request, network and report are JSON text (toJob parses them). */
const jobColumns = `id, caller, identifier, priority, request, base_url AS "baseUrl", status, attempts, max_attempts AS "maxAttempts",
  created_at AS "createdAt", available_at AS "availableAt", claimed_by AS "claimedBy", claimed_at AS "claimedAt", lease_until AS "leaseUntil",
  finished_at AS "finishedAt", file_id AS "fileId", pages, bytes, error, error_code AS "errorCode", network, report,
  trace_context AS "traceContext"`;

/** A job as the statements return it. */
export type JobRow = Omit<Job, 'request' | 'network' | 'report'> & {
  request: string | null;
  network: string | null;
  report: string | null;
};

export const toJob = (row: JobRow): Job => ({
  ...row,
  request: row.request === null ? null : JSON.parse(row.request),
  network: row.network === null ? null : JSON.parse(row.network),
  report: row.report === null ? null : JSON.parse(row.report),
});

/** A claimed job's row, written only by its holder (fencing): a worker whose lease ran out and was taken over writes nothing. */
const held = "id = :id AND claimed_by = :worker AND status = 'rendering'";
// A failure the same document would meet again (PdfRenderError.documentFault) is not tried again.
const lastTry = 'CAST(:retryAt AS BIGINT) IS NULL';

export const jobStatements = (d: Dialect) => ({
  get: `SELECT ${jobColumns} FROM jobs WHERE id = :id`,
  // One statement reads the row (and its request) once: the next ready job, taken, as it is then.
  // Callers share the workers: the next job is of the caller with the fewest jobs rendering now, so
  // one caller's many (or high-priority) jobs never keep another's waiting; priority orders a
  // caller's own jobs, and among callers as far along, which goes first. The rendering counts come
  // from the jobs_held index (status, caller); with 10,000 jobs of 50 callers queued a claim took
  // 3.8 ms against 1.9 ms by priority alone (SQLite, this machine).
  claim: `UPDATE jobs SET status = 'rendering', claimed_by = :worker, claimed_at = :now, lease_until = :leaseUntil, attempts = attempts + 1
     WHERE id = (SELECT q.id FROM jobs q
                   LEFT JOIN (SELECT caller, count(*) AS n FROM jobs WHERE status = 'rendering' GROUP BY caller) busy
                     ON busy.caller = q.caller
                 WHERE q.status = 'queued' AND q.available_at <= :now
                 ORDER BY coalesce(busy.n, 0), q.priority DESC, q.created_at, q.${d.writeOrder}
                 LIMIT 1 ${d.skipLocked('q')})
       AND status = 'queued'
     RETURNING ${jobColumns}`,
  heartbeat: `UPDATE jobs SET lease_until = :leaseUntil WHERE ${held}`,
  complete: `UPDATE jobs SET status = 'succeeded', request = NULL, finished_at = :now, file_id = :fileId, pages = :pages, bytes = :bytes,
       network = :network, report = :report, error = NULL, error_code = NULL, lease_until = NULL
     WHERE ${held} RETURNING ${eventColumns}`,
  // After the last attempt (or with no retry: a null retryAt) the job fails and drops its request;
  // before it, it waits for the next.
  fail: `UPDATE jobs SET
       status = CASE WHEN attempts >= max_attempts OR ${lastTry} THEN 'failed' ELSE 'queued' END,
       request = CASE WHEN attempts >= max_attempts OR ${lastTry} THEN NULL ELSE request END,
       finished_at = CASE WHEN attempts >= max_attempts OR ${lastTry} THEN CAST(:now AS BIGINT) ELSE NULL END,
       available_at = COALESCE(CAST(:retryAt AS BIGINT), CAST(:now AS BIGINT)), error = :error, error_code = :code, report = :report,
       lease_until = NULL, claimed_by = NULL
     WHERE ${held} RETURNING ${eventColumns}`,
  // A storage fault is not the document's: the job goes back without spending the attempt its claim counted.
  release: `UPDATE jobs SET status = 'queued', attempts = attempts - 1, available_at = :availableAt, lease_until = NULL, claimed_by = NULL
     WHERE ${held}`,
  // Jobs this process's workers still hold are theirs to settle, even past their lease: a write
  // lock held elsewhere, or a full disk, may have kept their heartbeats from landing.
  expired: `SELECT id, claimed_by AS "claimedBy", attempts, max_attempts AS "maxAttempts", trace_context AS "traceContext" FROM jobs
     WHERE status = 'rendering' AND lease_until < :now AND NOT (${d.among('id', 'inHand', 'text')})
     ORDER BY ${d.writeOrder} ${d.skipLocked()}`,
  forgetIdentifiers: 'DELETE FROM identifiers WHERE seen_at <= :before',
  // A held event lives as long as the job it tells of (whose file and status go at the same time):
  // this bounds what a disabled endpoint holds by what the jobs table holds.
  expireHeld: `UPDATE webhook_deliveries SET status = 'failed', last_error = 'held until its job passed the retention period; the endpoint was never enabled'
     WHERE status = 'held' AND created_at <= :before`,
  dropFinished: "DELETE FROM jobs WHERE status IN ('succeeded', 'failed') AND finished_at <= :before",
  dropDeliveries: `DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed')
     AND NOT EXISTS (SELECT 1 FROM jobs WHERE jobs.id = webhook_deliveries.job_id)`,
  // The overview is read at every metrics scrape by every instance: both read an index, never the
  // rows and their requests (the queued jobs from SQLite's jobs_ready, which holds priority,
  // available_at and created_at, or PostgreSQL's jobs_queued, those columns of queued jobs alone;
  // the rendering count from an index on status).
  queuedByPriority: `SELECT priority, count(*) AS count, min(created_at) AS "oldestCreatedAt",
       count(*) FILTER (WHERE available_at <= :now) AS ready
     FROM jobs WHERE status = 'queued' GROUP BY priority ORDER BY priority DESC`,
  rendering: "SELECT count(*) AS count FROM jobs WHERE status = 'rendering'",
  // By code, with the newest failure's error: the first row of each code by finished_at, from the
  // jobs_finished index (status, finished_at).
  failures: `SELECT code, count, "lastAt", "lastError" FROM (
       SELECT error_code AS code, count(*) OVER codes AS count, max(finished_at) OVER codes AS "lastAt", error AS "lastError",
         row_number() OVER (PARTITION BY error_code ORDER BY finished_at DESC, ${d.writeOrder} DESC) AS rank
       FROM jobs WHERE status = 'failed' AND finished_at >= :since
       WINDOW codes AS (PARTITION BY error_code)
     ) latest WHERE rank = 1 ORDER BY "lastAt" DESC, code`,
});

/**
 * A new job as both stores' enqueues write it: its id, and its request serialized once (outside
 * any lock), whose size the queue bounds count and whose digest tells a retry of the same request.
 */
export function newJob(input: EnqueueInput) {
  const request = JSON.stringify(input.request);
  return {
    id: `job_${randomBytes(12).toString('base64url')}`,
    caller: input.caller,
    identifier: input.identifier,
    priority: input.priority,
    request,
    requestBytes: Buffer.byteLength(request),
    digest: requestDigest(input.priority, request),
    baseUrl: input.baseUrl,
    maxAttempts: input.maxAttempts,
    now: input.now,
    traceContext: input.traceContext ?? null,
  };
}

/** The parameters of `complete`. */
export const completeParams = (id: string, worker: string, now: number, result: JobResult) => ({
  id,
  worker,
  now,
  fileId: result.fileId,
  pages: result.pages,
  bytes: result.bytes,
  network: result.network ? JSON.stringify(result.network) : null,
  report: result.report ? JSON.stringify(result.report) : null,
});

/** The parameters of `fail` (a null `retryAt`: no retry, the job fails now). */
export const failParams = (
  id: string,
  worker: string | null,
  now: number,
  error: JobError,
  retryAt: number | null,
) => ({
  id,
  worker,
  now,
  retryAt,
  error: error.message,
  code: error.code,
  report: error.report ? JSON.stringify(error.report) : null,
});
