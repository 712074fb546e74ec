/**
 * The bounds on what the async queue holds: jobs queued or rendering, and the bytes of their
 * requests, per caller and in total (enqueue-rules.ts judges a job against them). SQLite reads the
 * sums inside the enqueue's IMMEDIATE transaction, so two requests at once cannot both fit under a
 * bound that only one of them fits under; PostgreSQL reads the same under its enqueue lock.
 */
import type { Db } from './open-db.js';

export interface QueueBounds {
  /** Jobs queued or rendering, in total (--max-queue). */
  maxQueue: number;
  /** Jobs queued or rendering of one caller (--max-queue-per-caller). */
  maxQueuePerCaller: number;
  /** Request bytes of the jobs queued or rendering, in total (--max-queue-bytes). */
  maxQueueBytes: number;
  /** Request bytes of one caller's jobs queued or rendering (--max-queue-bytes-per-caller). */
  maxQueueBytesPerCaller: number;
}

/** Jobs queued or rendering and the bytes of their requests (in total, or of one caller). */
export interface Held {
  jobs: number;
  bytes: number;
}

/** What a data dir's queue holds, in total and of one caller; read it inside the transaction that queues the job. */
export function queueHeld(db: Db) {
  // Both sums are read from the jobs_held index alone, never from the rows and their requests.
  const total = db.prepare<[], Held>("SELECT count(*) AS jobs, coalesce(sum(request_bytes), 0) AS bytes FROM jobs WHERE status IN ('queued', 'rendering')");
  const ofCaller = db.prepare<[string], Held>(
    "SELECT count(*) AS jobs, coalesce(sum(request_bytes), 0) AS bytes FROM jobs WHERE status IN ('queued', 'rendering') AND caller = ?",
  );
  return (caller: string): { total: Held; caller: Held } => ({ total: total.get()!, caller: ofCaller.get(caller)! });
}
