/**
 * The bounds on what the async queue holds: jobs queued or rendering, and the bytes of their
 * requests, per caller and in total (enqueue-rules.ts judges a job against them). Each store reads
 * the sums under its enqueue's lock (sqlite/queue-held.ts, PostgreSQL's enqueue function), so two
 * requests at once cannot both fit under a bound that only one of them fits under.
 */
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
