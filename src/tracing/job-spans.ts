/**
 * The spans of an async job after its enqueue: its render on a worker and each webhook delivery,
 * children of the context stored with the job (Job.traceContext, Delivery.traceContext), so the
 * instance that queued it and those that render and deliver it write one trace. It takes the fields
 * it reads (of a store's Job and Delivery), so tracing sits below the store.
 */
import { SpanKind, type Span } from '@opentelemetry/api';
import { contextOf, inSpan } from './spans.js';

/** The attribute naming the job on its spans: its id, never the caller's identifier (docs/operating.md#traces). */
export const jobIdAttribute = 'pdfrender.job.id';

/** Run a worker's attempt at `job` in its "job render" span. */
export function inJobRenderSpan<T>(
  job: { id: string; attempts: number; traceContext: string | null },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan('job render', work, {
    kind: SpanKind.CONSUMER,
    parent: contextOf(job.traceContext),
    attributes: { [jobIdAttribute]: job.id, 'pdfrender.job.attempt': job.attempts },
  });
}

/** Run an attempt at `delivery` in its "webhook delivery" span (whose traceparent the POST carries). */
export function inDeliverySpan<T>(
  delivery: { jobId: string; endpointId: string; attempts: number; traceContext: string | null },
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan('webhook delivery', work, {
    kind: SpanKind.CLIENT,
    parent: contextOf(delivery.traceContext),
    attributes: {
      [jobIdAttribute]: delivery.jobId,
      'pdfrender.webhook.endpoint_id': delivery.endpointId,
      // The attempt this is, counting from 1 (the store counts those made before).
      'pdfrender.webhook.attempt': delivery.attempts + 1,
    },
  });
}
