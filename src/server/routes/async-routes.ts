/**
 * POST /api/pdfs/render-async (validate, require a webhook, dedupe the identifier, queue; 202) and
 * GET /api/pdfs/jobs/:jobId (the job's status). Async requests are never rate limited: the queue
 * paces them, and its bounds (jobs and bytes, per caller and in total) answer 503 instead.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { asyncAccepted, jobAnswer } from '../api/api-answers.js';
import { fileUrlPath, jobStatusPath } from '../api/api-paths.js';
import { PdfRenderError } from '../../errors.js';
import { parseAsyncRenderRequest } from '../../request.js';
import { callerKey, keyOf, viewerOf } from '../edge/caller.js';
import { noOwner } from '../../store/owners.js';
import type { AppDeps } from '../deps.js';
import { absoluteUrl, publicBase } from '../public-url.js';
import { readBody, unknownFieldsRule } from './read-body.js';
import { setWarningsHeader } from './warnings-header.js';
import { requestIdOf } from '../edge/request-id.js';
import { SpanKind } from '@opentelemetry/api';
import { currentTraceparent, inSpan } from '../../tracing/spans.js';
import { jobIdAttribute } from '../../tracing/job-spans.js';

/** Mount the routes on `app`. */
export function asyncRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.post('/api/pdfs/render-async', async (c) => {
    const ignored: string[] = [];
    const { identifier, priority, ...request } = parseAsyncRenderRequest(
      await readBody(c),
      unknownFieldsRule(deps.config, ignored),
    );
    // Refused now, as a 422, rather than as a failed job later.
    deps.engine.check(request);
    // An endpoint that would receive the job's event: the key's own or a global one (with auth off,
    // no key's). A disabled one counts: the event is held for it and sent once it is enabled again.
    const key = keyOf(c);
    if (!(await deps.webhooks.any(key ?? noOwner))) {
      throw new PdfRenderError(
        'WEBHOOK_NOT_CONFIGURED',
        key
          ? 'no webhook endpoint of this API key is configured: add one with POST /api/webhooks, sending this key'
          : 'no webhook endpoint is configured: add one with `pdfrender webhooks add <url>` or POST /api/webhooks',
      );
    }
    const now = deps.clock.now();
    // The job's trace starts here: its context is kept with it, for the spans of its render and its
    // webhook, on whichever instance takes them (tracing/job-spans.ts).
    const job = await inSpan(
      'job enqueue',
      async (span) => {
        const queued = await deps.queue.enqueue({
          caller: callerKey(c, deps.config),
          identifier,
          priority,
          request,
          baseUrl: publicBase(c, deps),
          now,
          dedupeWindowMs: deps.config.dedupeWindow,
          bounds: deps.config,
          maxAttempts: deps.config.maxAttempts,
          traceContext: currentTraceparent() ?? null,
        });
        span.setAttribute(jobIdAttribute, queued.id);
        return queued;
      },
      { kind: SpanKind.PRODUCER, attributes: { 'pdfrender.job.priority': priority } },
    );
    // The same request sent again answers the job it queued before, which changed nothing.
    if (job.createdAt === now)
      deps.jobChanged({ jobId: job.id, state: 'queued', maxAttempts: job.maxAttempts, requestId: requestIdOf(c) });
    // A 202 promises the job is kept: not if the database it went into was deleted or replaced.
    await deps.storage.confirm();
    deps.wakeWorkers();
    setWarningsHeader(c, ignored);
    return c.json(
      {
        outcome: 'SUCCESS',
        identifier,
        jobId: job.id,
        status: job.status,
        statusUrl: absoluteUrl(c, deps, jobStatusPath(job.id)),
      } satisfies z.infer<typeof asyncAccepted>,
      202,
    );
  });

  app.get('/api/pdfs/jobs/:jobId', async (c) => {
    const job = await deps.queue.get(c.req.param('jobId'));
    // Another key's job is not there (404, as an id nobody has: an id is not confirmed to exist).
    const viewer = viewerOf(c, deps.config);
    if (!job || (viewer !== undefined && job.caller !== viewer))
      throw new PdfRenderError('NOT_FOUND', `no job ${c.req.param('jobId')}`);
    return c.json({
      // The status call worked either way (200), but a job that failed for good says so where a
      // client looks first: its outcome is the failure's code, never SUCCESS beside a failed status.
      outcome: job.status === 'failed' ? (job.errorCode ?? 'RENDER_PDF_FAILED') : 'SUCCESS',
      jobId: job.id,
      identifier: job.identifier,
      status: job.status,
      priority: job.priority,
      attempts: job.attempts,
      createdAt: new Date(job.createdAt).toISOString(),
      startedAt: job.claimedAt === null ? null : new Date(job.claimedAt).toISOString(),
      finishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
      ...(job.fileId && job.pages !== null && job.bytes !== null
        ? { fileUrl: `${job.baseUrl}${fileUrlPath(job.fileId)}`, pages: job.pages, bytes: job.bytes }
        : {}),
      ...(job.network ? { blocked: job.network.blocked, failed: job.network.failed } : {}),
      ...(job.report ? { report: job.report } : {}),
      ...(job.error ? { error: job.error, errorCode: job.errorCode ?? 'RENDER_PDF_FAILED' } : {}),
    } satisfies z.infer<typeof jobAnswer>);
  });
}
