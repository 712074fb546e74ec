/**
 * A job's change of state on this instance, told once where it happens (the async route, the
 * workers) and written twice by the runtime: one line in the operator's log, one count in the
 * metrics.
 */
import type { ErrorCode } from '../errors.js';

/**
 * queued (accepted), rendering (taken by a worker), succeeded, retried (an attempt failed; another
 * follows), failed (for good), released (back to the queue, the attempt not counted: a stop, a
 * storage fault).
 */
export type JobState = 'queued' | 'rendering' | 'succeeded' | 'retried' | 'failed' | 'released';

export interface JobChange {
  jobId: string;
  state: JobState;
  /** The attempt this change belongs to (1 for the first render), and how many are allowed. */
  attempt?: number;
  maxAttempts?: number;
  /** Why an attempt failed or a job went back, as its caller is told. */
  code?: ErrorCode;
  /** How long the attempt's render took, ms. */
  ms?: number;
  /** What the log says beyond the state, and with what weight (default info). */
  message?: string;
  level?: 'error' | 'warn' | 'info';
  /** The ID of the request that queued it (for `queued`). */
  requestId?: string | undefined;
  /** The cause, for the log only. */
  error?: unknown;
}

/** Receives each change. */
export type JobChanges = (change: JobChange) => void;
