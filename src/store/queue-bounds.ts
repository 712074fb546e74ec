/**
 * The bounds on what the async queue holds: jobs queued or rendering, and the bytes of their
 * requests, per caller and in total. Read inside the enqueue's IMMEDIATE transaction, so two
 * requests at once cannot both fit under a bound that only one of them fits under. The checks
 * themselves are shared with the PostgreSQL store, which reads the same sums under its enqueue lock.
 */
import { PdfRenderError } from '../errors.js';
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

/** Seconds a refused caller is told to wait: about as long as a few renders take. */
const retryAfter = 30;

/** Jobs queued or rendering and the bytes of their requests (in total, or of one caller). */
export interface Held {
  jobs: number;
  bytes: number;
}

const full = (message: string) => new PdfRenderError('QUEUE_FULL', `${message}; try again when some have finished`, { retryAfter });

/**
 * Throw QUEUE_FULL (503, Retry-After) when a job of `bytes` would pass a bound of the whole queue.
 * A byte bound never refuses a queue (or caller) holding nothing, so one request of any size the
 * body limit lets in can always be queued, rather than being told to retry for ever.
 */
export function checkTotalBounds(all: Held, bytes: number, bounds: QueueBounds): void {
  if (all.jobs >= bounds.maxQueue) throw full(`the queue holds ${bounds.maxQueue} jobs already`);
  if (all.jobs > 0 && all.bytes + bytes > bounds.maxQueueBytes)
    throw full(
      `the queue's jobs hold ${all.bytes} bytes of requests already, and this one (${bytes} bytes) would pass its bound of ${bounds.maxQueueBytes} bytes`,
    );
}

/** Throw QUEUE_FULL when a job of `bytes` would pass a bound of its caller, who holds `mine`. */
export function checkCallerBounds(mine: Held, bytes: number, bounds: QueueBounds): void {
  if (mine.jobs >= bounds.maxQueuePerCaller) throw full(`you have ${mine.jobs} jobs queued or rendering already, the most one caller may have`);
  if (mine.jobs > 0 && mine.bytes + bytes > bounds.maxQueueBytesPerCaller) {
    throw full(
      `your queued jobs hold ${mine.bytes} bytes of requests already, and this one (${bytes} bytes) would pass the bound of ${bounds.maxQueueBytesPerCaller} bytes per caller`,
    );
  }
}

/** The check of a data dir's queue; call it inside the transaction that queues the job. */
export function queueBounds(db: Db) {
  // Both sums are read from the jobs_held index alone, never from the rows and their requests.
  const total = db.prepare<[], Held>("SELECT count(*) AS jobs, coalesce(sum(request_bytes), 0) AS bytes FROM jobs WHERE status IN ('queued', 'rendering')");
  const ofCaller = db.prepare<[string], Held>(
    "SELECT count(*) AS jobs, coalesce(sum(request_bytes), 0) AS bytes FROM jobs WHERE status IN ('queued', 'rendering') AND caller = ?",
  );
  /** Throw QUEUE_FULL (503, Retry-After) when a job of `bytes` from `caller` would pass a bound. */
  return (caller: string, bytes: number, bounds: QueueBounds): void => {
    checkTotalBounds(total.get()!, bytes, bounds);
    checkCallerBounds(ofCaller.get(caller)!, bytes, bounds);
  };
}
