/**
 * The job records both stores make the same way: the job an enqueue has just written, and the error
 * of an attempt whose lease ran out.
 */
import type { EnqueueInput, Job, JobError } from './contract.js';

/** The job `enqueue` has just written under `id`: both stores answer it without reading the row back. */
export function queuedJob(id: string, input: EnqueueInput): Job {
  return {
    id,
    caller: input.caller,
    identifier: input.identifier,
    priority: input.priority,
    request: input.request,
    baseUrl: input.baseUrl,
    status: 'queued',
    attempts: 0,
    maxAttempts: input.maxAttempts,
    createdAt: input.now,
    availableAt: input.now,
    claimedBy: null,
    claimedAt: null,
    leaseUntil: null,
    finishedAt: null,
    fileId: null,
    pages: null,
    bytes: null,
    error: null,
    errorCode: null,
    network: null,
    report: null,
    traceContext: input.traceContext ?? null,
  };
}

/** The error of an attempt whose lease ran out (its server died or stalled). */
export const leaseExpiredError: JobError = {
  code: 'RENDER_PDF_FAILED',
  message: 'the render stopped before finishing (its lease expired)',
};
