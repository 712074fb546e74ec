/**
 * The async workers: as many loops as the engine renders at once, each claiming the next job with
 * a lease, extending it by heartbeat while rendering (in the engine's background lane, behind sync
 * requests), storing the PDF and finishing the job (the job store queues its webhook event in the
 * same transaction). A failed attempt goes back to the queue with a delay until its last attempt,
 * unless the failure is the document's own (PdfRenderError.documentFault), which fails the job at once;
 * expired leases (a crashed server) are requeued. A storage fault (full disk, data dir gone,
 * database locked) is not the document's: the job goes back without spending its attempt, the
 * loops take no jobs while the storage is at fault, and the writes that settle a job in hand are
 * retried until they land, so its lease is never left to run out. A stopping server's grace running
 * out is not the document's either: renders still going then end, and their jobs go back the same way.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Engine } from '../engine/engine.js';
import { publicReport } from '../engine/network-report.js';
import { reportOf } from '../engine/report/render-report.js';
import { callerError, isPdfRenderError } from '../errors.js';
import { logReportDetail, type EventLog } from '../event-log.js';
import { valueWithin } from '../race.js';
import { parseRenderRequest } from '../request.js';
import type { FileStore, Job, JobQueue, StoredFile } from '../store/contract.js';
import type { JobChanges } from './job-change.js';
import { leaseExpiredError } from '../store/job-records.js';
import { ownerOfCaller } from '../store/owners.js';
import { isStorageFault } from '../store/storage-errors.js';
import type { StorageHealth } from '../store/health/storage-health.js';
import type { Span } from '@opentelemetry/api';
import { inJobRenderSpan } from '../tracing/job-spans.js';
import { failSpan, inContextOf } from '../tracing/spans.js';

const pollMs = 1_000;
/** The longest pause of a loop after errors in a row (each error doubles it from pollMs). */
const longestBackoffMs = 30_000;
/** Delay before retrying a failed attempt, growing with each attempt. */
const retryDelayMs = (attempts: number) => 2_000 * 2 ** (attempts - 1);
/**
 * How long a stop waits, once it gave up on the jobs in hand, for their writes (a release, a file
 * discarded) to land: an aborted render ends at once, but a database that does not answer must not
 * hold a process on its way out. A job not handed back by then returns when its lease runs out.
 */
const handBackWithinMs = 2_000;

export interface WorkerDeps {
  engine: Engine;
  queue: JobQueue;
  files: FileStore;
  clock: Clock;
  /** Retention of rendered files, ms. */
  retentionMs: number;
  /** Lease length, ms (--job-lease): renewed every third of it while a job renders, so it may be shorter than a render. */
  leaseMs: number;
  /** Called after an event was queued, so the sender looks at once. */
  onEvent: () => void;
  /** The operator's log: the cause of every failed attempt (its caller only sees a safe message). */
  events: EventLog;
  /** Told of each job's change of state here (the log's line and the metrics' count; job-change.ts). */
  jobChanged: JobChanges;
  /** While it reports a fault, no job is taken. */
  storage: StorageHealth;
}

export interface Workers {
  /** A job was queued: an idle loop takes it now instead of at its next poll. */
  wake(): void;
  /**
   * Take no new jobs from now on; resolves when the jobs in hand are done (a second call answers
   * the first one's promise). Once `giveUp` aborts (a stopping server's grace ran out), renders
   * still going end and their jobs go back to the queue, the attempt not counted; without it, the
   * jobs in hand finish however long they take.
   */
  stop(giveUp?: AbortSignal): Promise<void>;
}

/** Start `count` worker loops. */
export function startWorkers(deps: WorkerDeps, count: number): Workers {
  const workerId = `w_${randomBytes(6).toString('hex')}`;
  let stopped = false;
  /** Aborted when the stop gives up on the jobs in hand: the signal of every render. */
  const cut = new AbortController();
  /** Whether the stop waits for its signal before giving up on settling the jobs in hand (see settle). */
  let patient = false;
  const givingUp = () => stopped && (!patient || cut.signal.aborted);
  /** Jobs given up on and handed back to the queue, and those whose hand-back failed. */
  const handed = { back: 0, not: 0 };
  let stopping: Promise<void> | undefined;
  let sleepers: Array<() => void> = [];
  /** Pause `ms`, or less when woken; `settling` (a write that settles a job in hand) pauses until the stop gives up. */
  const sleep = (ms = pollMs, settling = false) =>
    new Promise<void>((resolve) => {
      // A loop that fails while stopping must not pause: the server waits for it.
      if (stopped && (!settling || givingUp())) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        sleepers = sleepers.filter((s) => s !== done);
        resolve();
      }
      sleepers.push(done);
    });
  const wakeAll = () => [...sleepers].forEach((wake) => wake());
  /** Jobs the loops are on: theirs to settle, so never requeued as expired by this process. */
  const inHand = new Set<string>();

  /**
   * Run a write that settles a job in hand until it lands, waiting out storage faults; gives up only
   * when the stop gives up on the jobs in hand (the lease then brings the job back).
   */
  const settle = async <T>(work: () => T): Promise<Awaited<T>> => {
    for (let pause = pollMs / 2; ; pause = Math.min(pause * 2, 5_000)) {
      try {
        return await work();
      } catch (error) {
        if (!isStorageFault(error) || givingUp()) throw error;
      }
      await sleep(pause, true);
    }
  };

  let nextExpiryCheck = 0;
  const loop = async (index: number) => {
    const holder = `${workerId}.${index}`;
    let failures = 0;
    while (!stopped) {
      try {
        // No job is taken while the storage is at fault: its PDF could not be kept. The health
        // monitor says so in the log, once; the loop just looks again at its next poll.
        if (deps.storage.current()) {
          await sleep();
          continue;
        }
        // Expired leases are looked for once per poll interval, not before every claim: each look is
        // a write transaction, and at saturation one per job cost throughput. A job that ran out of
        // attempts this way has queued its failure event.
        if (deps.clock.now() >= nextExpiryCheck) {
          nextExpiryCheck = deps.clock.now() + pollMs;
          const expired = await deps.queue.requeueExpired(deps.clock.now(), [...inHand]);
          // A job whose server died or stalled: back to the queue, or failed after its last attempt.
          // Told in the job's trace, as its other lines are.
          for (const { id, status, attempts, maxAttempts, traceContext } of expired)
            inContextOf(traceContext, () =>
              deps.jobChanged({
                jobId: id,
                state: status === 'failed' ? 'failed' : 'retried',
                attempt: attempts,
                maxAttempts,
                code: leaseExpiredError.code,
                level: 'warn',
                message: leaseExpiredError.message,
              }),
            );
          if (expired.some(({ status }) => status === 'failed')) deps.onEvent();
        }
        const job = await deps.queue.claim(holder, deps.clock.now(), deps.leaseMs);
        failures = 0;
        if (job) await run(job, holder);
        else await sleep();
      } catch (error) {
        // A failing database must not end the loop, nor fill the log: the pause doubles with each
        // error in a row. Storage faults are the health monitor's to log.
        failures += 1;
        if (!isStorageFault(error))
          deps.events({ level: 'error', message: 'async worker error; retrying shortly', error });
        await sleep(Math.min(longestBackoffMs, pollMs * 2 ** (failures - 1)));
      }
    }
  };

  // Each attempt in a span of its own, in the job's trace (tracing/job-spans.ts).
  const run = (job: Job, holder: string) => inJobRenderSpan(job, (span) => attempt(job, holder, span));

  const attempt = async (job: Job, holder: string, span: Span) => {
    inHand.add(job.id);
    let beating = false;
    const heartbeat = setInterval(
      () => {
        // One beat at a time: a beat waiting for a lock is not joined by the next.
        if (beating) return;
        beating = true;
        deps.queue
          .heartbeat(job.id, holder, deps.clock.now() + deps.leaseMs)
          .catch((error: unknown) => {
            if (!isStorageFault(error))
              deps.events({
                level: 'error',
                message: 'lease heartbeat failed; retrying at the next one',
                jobId: job.id,
                error,
              });
          })
          .finally(() => (beating = false));
      },
      Math.max(1_000, deps.leaseMs / 3),
    );
    let file: StoredFile | undefined;
    const which = { attempt: job.attempts, maxAttempts: job.maxAttempts };
    deps.jobChanged({ jobId: job.id, state: 'rendering', ...which });
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    try {
      // The job's assets, kept in its stored request until it finishes, are its document's folder while
      // it renders (the engine's doing).
      const result = await deps.engine.render(parseRenderRequest(job.request), {
        lane: 'background',
        signal: cut.signal,
        caller: job.caller,
      });
      file = await deps.files.save(
        result.pdf,
        result.pages,
        deps.clock.now(),
        deps.retentionMs,
        ownerOfCaller(job.caller),
      );
      // Only the lease holder may finish the job; if the lease was lost, the new holder reports it.
      logReportDetail(deps.events, result.network, { jobId: job.id });
      const stored = file;
      if (
        await settle(() =>
          deps.queue.complete(job.id, holder, deps.clock.now(), {
            fileId: stored.id,
            pages: stored.pages,
            bytes: stored.bytes,
            network: publicReport(result.network),
            report: result.report,
          }),
        )
      ) {
        deps.onEvent();
        deps.jobChanged({ jobId: job.id, state: 'succeeded', ...which, ms: ms() });
      } else {
        // This process stalled past its lease (paused, or cut off from the database) and another
        // worker took the job over: its render is the one kept, and nothing will ever name this PDF.
        deps.events({
          level: 'warn',
          message: 'async job was taken over by another worker after its lease ran out; this render is discarded',
          jobId: job.id,
        });
        await deps.files.discard(stored);
      }
    } catch (error) {
      if (cut.signal.aborted) {
        // The server stopped and its grace ran out (the render was aborted, or a write after it did not
        // land in time): not the document's fault, so the job goes back at once, for another instance
        // or the next start, without spending its attempt. A PDF it made is dropped only once the job
        // is known to be back: a completion whose answer was lost may have landed and name it.
        const back = await settle(() => deps.queue.release(job.id, holder, deps.clock.now())).catch(
          (error: unknown) => {
            if (!isStorageFault(error))
              deps.events({
                level: 'error',
                message: 'could not hand an async job back to the queue',
                jobId: job.id,
                error,
              });
            return false;
          },
        );
        if (back && file) await deps.files.discard(file);
        if (back)
          deps.jobChanged({
            jobId: job.id,
            state: 'released',
            ...which,
            message: 'back to the queue: the server stopped',
          });
        handed[back ? 'back' : 'not'] += 1;
        return;
      }
      if (isStorageFault(error)) {
        // The PDF could not be kept: not the document's fault, so the attempt does not count. Said now:
        // the release itself may have to wait for the storage (a full disk takes no write at all).
        deps.events({
          level: 'warn',
          message: `async job goes back to the queue: its PDF could not be stored (${error.code}); the attempt does not count`,
          jobId: job.id,
          code: error.code,
        });
        if (file) await deps.files.discard(file);
        if (await settle(() => deps.queue.release(job.id, holder, deps.clock.now())))
          deps.jobChanged({ jobId: job.id, state: 'released', ...which, code: error.code });
        return;
      }
      // The same rule as a sync response: the job status and webhook get the safe message (and the
      // report of a render a failOn rule failed), the log the cause.
      const failure = { ...callerError(error), report: reportOf(error) };
      failSpan(span, error);
      // The document's own failure (its deadline, a wait never met, a failOn rule) would come again:
      // the job fails now. Only what another try may mend (the browser died) is tried again.
      const final = isPdfRenderError(error) && error.documentFault === true;
      const now = deps.clock.now();
      const retryAt = final ? null : now + retryDelayMs(job.attempts);
      const status = await settle(() => deps.queue.fail(job.id, holder, now, failure, retryAt)).catch(
        (writeError: unknown) => {
          // Given up on by a stop: the job comes back when its lease runs out, but this cause is said now.
          deps.events({
            level: 'warn',
            message: 'async render failed, and the stop came before its failure was recorded',
            jobId: job.id,
            code: failure.code,
            error,
          });
          throw writeError;
        },
      );
      if (status === 'failed') deps.onEvent();
      const why = final
        ? 'the render failed because of the document itself, not tried again'
        : status === 'failed'
          ? 'the render failed on its last attempt'
          : `the render failed; tried again in ${retryDelayMs(job.attempts) / 1000} s`;
      if (status !== null)
        deps.jobChanged({
          jobId: job.id,
          state: status === 'failed' ? 'failed' : 'retried',
          ...which,
          code: failure.code,
          ms: ms(),
          level: failure.code === 'INTERNAL_ERROR' ? 'error' : 'warn',
          message: `${why} (attempt ${job.attempts} of ${job.maxAttempts})`,
          error,
        });
      else
        deps.events({
          level: 'warn',
          message:
            'async render failed after another worker took the job over (its lease ran out); that worker reports it',
          jobId: job.id,
          code: failure.code,
          error,
        });
    } finally {
      clearInterval(heartbeat);
      inHand.delete(job.id);
    }
  };

  const loops = Array.from({ length: count }, (_, index) => loop(index));
  return {
    wake() {
      sleepers[0]?.();
    },
    stop(giveUp) {
      return (stopping ??= (async () => {
        stopped = true;
        patient = giveUp !== undefined;
        wakeAll();
        const done = Promise.all(loops).then(() => true);
        if (!giveUp) return void (await done);
        const gaveUp = new Promise<false>((resolve) =>
          cut.signal.addEventListener('abort', () => resolve(false), { once: true }),
        );
        const giveUpNow = () => {
          cut.abort(giveUp.reason);
          // Pauses between settling writes end too: those writes give up now.
          wakeAll();
        };
        if (giveUp.aborted) giveUpNow();
        else giveUp.addEventListener('abort', giveUpNow, { once: true });
        if (await Promise.race([done, gaveUp])) return giveUp.removeEventListener('abort', giveUpNow);
        // Given up on: the jobs in hand go back now, within a bound.
        const ended = await valueWithin(done, handBackWithinMs, false);
        const late = handed.not + (ended ? 0 : inHand.size);
        deps.events({
          level: 'warn',
          message:
            `shutdown grace ran out: ${handed.back} async job(s) still rendering went back to the queue (for another instance or the next start), their attempts not counted` +
            (late > 0 ? `; ${late} could not be handed back in time and return when their leases run out` : ''),
        });
      })());
    },
  };
}
