/**
 * The rules an enqueue is judged by, and the words of its refusals, for both stores. The same
 * identifier from the same caller within the dedupe window is refused (402), saying when it may be
 * used again, unless it comes with the same request (and priority) as the job it queued: that is a
 * retry (the caller never got its answer: a lost connection, a 504 OUTCOME_UNKNOWN), answered with
 * that job. Then the queue's bounds: jobs queued or rendering and the bytes of their requests, in
 * total and per caller (503 QUEUE_FULL, Retry-After); a byte bound never refuses a queue (or a
 * caller) holding nothing, so one request of any size the body limit lets in can always be queued.
 *
 * Each database decides under its own lock, from what it holds then, and answers a verdict and the
 * figures it read: SQLite through `judgeEnqueue` inside its IMMEDIATE transaction, PostgreSQL in
 * the same order inside pdfrender_enqueue_v2 (postgres/schema.ts), one round trip. `enqueueRefusal`
 * turns either's verdict into the one refusal, so the two can never word it differently.
 */
import { createHash } from 'node:crypto';
import { PdfRenderError } from '../errors.js';
import type { EnqueueInput } from './contract.js';

/** What an enqueue came to: queued, the job the same request queued before, or which rule refused it. */
export type EnqueueVerdict =
  'queued' | 'retry' | 'duplicate' | 'total-jobs' | 'total-bytes' | 'caller-jobs' | 'caller-bytes';

/** What the database held when it judged: the identifier's last use, and the queue's jobs and request bytes, in total and of the caller. */
export interface EnqueueFigures {
  seenAt: number | null;
  jobs: number;
  bytes: number;
  callerJobs: number;
  callerBytes: number;
}

/**
 * What makes two sends of an identifier the same request: its priority and its request (defaults
 * applied) as the store writes it, `requestJson`, hashed (SHA-256, base64url). Taken from the JSON
 * the store serializes anyway, so an enqueue serializes its request once.
 */
export function requestDigest(priority: number, requestJson: string): string {
  return createHash('sha256').update(`${priority}\n${requestJson}`).digest('base64url');
}

/**
 * The verdict on a job of `requestBytes` from `input`, given `held`; `sameRequest` when the
 * identifier's last use carried this request's digest and its job is still kept. The order is the
 * rules' order, and pdfrender_enqueue_v2's.
 */
export function judgeEnqueue(
  held: EnqueueFigures,
  sameRequest: boolean,
  input: EnqueueInput,
  requestBytes: number,
): EnqueueVerdict {
  const { bounds } = input;
  if (held.seenAt !== null && held.seenAt > input.now - input.dedupeWindowMs)
    return sameRequest ? 'retry' : 'duplicate';
  if (held.jobs >= bounds.maxQueue) return 'total-jobs';
  if (held.jobs > 0 && held.bytes + requestBytes > bounds.maxQueueBytes) return 'total-bytes';
  if (held.callerJobs >= bounds.maxQueuePerCaller) return 'caller-jobs';
  if (held.callerJobs > 0 && held.callerBytes + requestBytes > bounds.maxQueueBytesPerCaller) return 'caller-bytes';
  return 'queued';
}

/** Seconds a caller refused for a full queue is told to wait: about as long as a few renders take. */
const fullRetryAfter = 30;

const full = (message: string) =>
  new PdfRenderError('QUEUE_FULL', `${message}; try again when some have finished`, { retryAfter: fullRetryAfter });

/** The refusal a verdict other than queued or retry stands for, worded from the figures the database read. */
export function enqueueRefusal(
  verdict: Exclude<EnqueueVerdict, 'queued' | 'retry'>,
  held: EnqueueFigures,
  input: EnqueueInput,
  requestBytes: number,
): PdfRenderError {
  const { bounds } = input;
  switch (verdict) {
    case 'duplicate': {
      const wait = Math.ceil(((held.seenAt ?? input.now) + input.dedupeWindowMs - input.now) / 1000);
      return new PdfRenderError(
        'DUPLICATE_IDENTIFIER',
        `identifier "${input.identifier}" was already sent in the last ${input.dedupeWindowMs / 1000} s; it may be used again in ${wait} s`,
      );
    }
    case 'total-jobs':
      return full(`the queue holds ${bounds.maxQueue} jobs already`);
    case 'total-bytes':
      return full(
        `the queue's jobs hold ${held.bytes} bytes of requests already, and this one (${requestBytes} bytes) would pass its bound of ${bounds.maxQueueBytes} bytes`,
      );
    case 'caller-jobs':
      return full(`you have ${held.callerJobs} jobs queued or rendering already, the most one caller may have`);
    case 'caller-bytes':
      return full(
        `your queued jobs hold ${held.callerBytes} bytes of requests already, and this one (${requestBytes} bytes) would pass the bound of ${bounds.maxQueueBytesPerCaller} bytes per caller`,
      );
    default:
      // A verdict this version does not know (a database function newer than this code): a bug, said as one.
      throw new Error(`an enqueue was refused for no rule this version knows (${String(verdict)})`);
  }
}
