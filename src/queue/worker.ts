/**
 * The async workers: as many loops as the engine renders at once, each claiming the next job with
 * a lease, extending it by heartbeat while rendering (in the engine's background lane, behind sync
 * requests), storing the PDF and finishing the job (the job store queues its webhook event in the
 * same transaction). A failed attempt goes back to the queue with a delay until its last attempt;
 * expired leases (a crashed server) are requeued.
 */
import { randomBytes } from 'node:crypto';
import type { Engine } from '../engine/engine.js';
import { publicReport } from '../engine/page-guard.js';
import { callerError } from '../errors.js';
import { parseRenderRequest } from '../request.js';
import type { Clock } from '../server/deps.js';
import { logReportDetail, type EventLog } from '../server/event-log.js';
import type { FileStore } from '../store/file-store.js';
import type { Job, JobQueue } from '../store/jobs.js';

const pollMs = 1_000;
/** Delay before retrying a failed attempt, growing with each attempt. */
const retryDelayMs = (attempts: number) => 2_000 * 2 ** (attempts - 1);

export interface WorkerDeps {
  engine: Engine;
  queue: JobQueue;
  files: FileStore;
  clock: Clock;
  /** Retention of rendered files, ms. */
  retentionMs: number;
  /** Lease length, ms: longer than a render's deadline. */
  leaseMs: number;
  /** Called after an event was queued, so the sender looks at once. */
  onEvent: () => void;
  /** The operator's log: the cause of every failed attempt (its caller only sees a safe message). */
  events: EventLog;
}

export interface Workers {
  /** A job was queued: an idle loop takes it now instead of at its next poll. */
  wake(): void;
  /** Take no new jobs; resolves when the jobs in hand are done. */
  stop(): Promise<void>;
}

/** Start `count` worker loops. */
export function startWorkers(deps: WorkerDeps, count: number): Workers {
  const workerId = `w_${randomBytes(6).toString('hex')}`;
  let stopped = false;
  let sleepers: Array<() => void> = [];
  const sleep = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        sleepers = sleepers.filter((s) => s !== done);
        resolve();
      }
      sleepers.push(done);
    });

  let nextExpiryCheck = 0;
  const loop = async (index: number) => {
    const holder = `${workerId}.${index}`;
    while (!stopped) {
      try {
        // Expired leases are looked for once per poll interval, not before every claim: each look is
        // a write transaction, and at saturation one per job cost throughput. A job that ran out of
        // attempts this way has queued its failure event.
        if (deps.clock.now() >= nextExpiryCheck) {
          nextExpiryCheck = deps.clock.now() + pollMs;
          if (deps.queue.requeueExpired(deps.clock.now()) > 0) deps.onEvent();
        }
        const job = deps.queue.claim(holder, deps.clock.now(), deps.leaseMs);
        if (job) await run(job, holder);
        else await sleep();
      } catch (error) {
        // A busy or failing database must not end the loop: the job (if any) keeps its lease and
        // comes back when it runs out.
        deps.events({ level: 'error', message: 'async worker error; retrying shortly', error });
        await sleep();
      }
    }
  };

  const run = async (job: Job, holder: string) => {
    const heartbeat = setInterval(() => {
      // A busy database must not throw out of a timer (that ends the process); the next beat tries
      // again, and the lease outlasts two missed beats.
      try {
        deps.queue.heartbeat(job.id, holder, deps.clock.now() + deps.leaseMs);
      } catch (error) {
        deps.events({ level: 'error', message: 'lease heartbeat failed; retrying at the next one', jobId: job.id, error });
      }
    }, Math.max(1_000, deps.leaseMs / 3));
    try {
      const result = await deps.engine.render(parseRenderRequest(job.request), { lane: 'background' });
      const file = await deps.files.save(result.pdf, result.pages, deps.clock.now(), deps.retentionMs);
      // Only the lease holder may finish the job; if the lease was lost, the new holder reports it.
      logReportDetail(deps.events, result.network, { jobId: job.id });
      if (deps.queue.complete(job.id, holder, deps.clock.now(), { fileId: file.id, pages: file.pages, bytes: file.bytes, network: publicReport(result.network) })) deps.onEvent();
    } catch (error) {
      // The same rule as a sync response: the job status and webhook get the safe message, the log the cause.
      const failure = callerError(error);
      deps.events({ level: failure.code === 'INTERNAL_ERROR' ? 'error' : 'warn', message: `async render failed (attempt ${job.attempts} of ${job.maxAttempts})`, jobId: job.id, code: failure.code, error });
      const now = deps.clock.now();
      if (deps.queue.fail(job.id, holder, now, failure, now + retryDelayMs(job.attempts)) === 'failed') deps.onEvent();
    } finally {
      clearInterval(heartbeat);
    }
  };

  const loops = Array.from({ length: count }, (_, index) => loop(index));
  return {
    wake() {
      sleepers[0]?.();
    },
    async stop() {
      stopped = true;
      for (const wake of [...sleepers]) wake();
      await Promise.all(loops);
    },
  };
}
