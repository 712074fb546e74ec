/**
 * What the HTTP API answers and what its webhooks send, as zod schemas: the routes build their
 * bodies to these types, the OpenAPI document is generated from them, and the tests parse real
 * answers with them, so the three cannot drift apart. (The request's own schema is request.ts.)
 */
import { z } from 'zod';
import { renderReportSchema, resourceIssueSchema } from '../../engine/report/report-schema.js';
import { errorCodes, type ErrorCode } from '../../errors.js';

const count = (description: string) => z.int().min(0).describe(description);
const instant = (description: string) => z.iso.datetime().describe(description);
/** Milliseconds since 1970 (the webhook endpoint routes answer times so, as the store keeps them). */
const epochMs = (description: string) => z.int().describe(`${description}, in milliseconds since 1970-01-01 UTC`);

/** A URL the document asked for and did not get, with a reason safe for any caller. */
export const resourceIssue = resourceIssueSchema;

const blocked = z.array(resourceIssue).describe('URLs the network policy refused');
const failed = z.array(resourceIssue).describe('URLs that failed to load');

/** The preflight report of a render (engine/report/render-report.ts): its schema is the engine's own. */
export const renderReport = renderReportSchema;

/** The X-Pdfrender-Report header when the whole report does not fit: the problems counted per kind, and the timings. */
export const truncatedReport = z
  .strictObject({
    truncated: z.literal(true),
    counts: z.strictObject({
      missingGlyphs: count('characters no font could draw'),
      resourceErrors: count('URLs blocked or failed, broken images and fonts that failed'),
      scriptErrors: count('script errors'),
      overflow: count('elements wider than the printable width'),
    }),
    timings: renderReportSchema.shape.timings,
  })
  .describe('the report was too long for a header: its problems counted per kind, and its timings');

/** What X-Pdfrender-Report holds: the whole report, or its counts when it does not fit. */
export const reportHeaderValue = z.union([renderReport, truncatedReport]);

/** 200 of render-sync as JSON. */
export const renderSyncAnswer = z.strictObject({
  outcome: z.literal('SUCCESS'),
  fileUrl: z.url().describe('where the PDF can be downloaded until the retention period ends'),
  pages: count('pages in the PDF'),
  bytes: count('size of the PDF'),
  blocked,
  failed,
  report: renderReport,
});

const jobStatus = z.enum(['queued', 'rendering', 'succeeded', 'failed']);

/** 202 of render-async. */
export const asyncAccepted = z.strictObject({
  outcome: z.literal('SUCCESS'),
  identifier: z.string().describe("the caller's identifier, echoed in the webhook event"),
  jobId: z.string(),
  status: z
    .enum(['queued', 'rendering', 'succeeded', 'failed'])
    .describe(
      'queued for a new job; for the same request sent again within the dedupe window, the status of the job it queued',
    ),
  statusUrl: z.url().describe("the job's status (GET)"),
});

/** The code of a job that failed for good: RENDER_PDF_FAILED as a rule, INTERNAL_ERROR when the cause is only in the server's log. */
const jobErrorCode = z
  .enum(errorCodes as [ErrorCode, ...ErrorCode[]])
  .describe("RENDER_PDF_FAILED as a rule; INTERNAL_ERROR when the cause is only in the server's log");

/** 200 of a job's status. */
export const jobAnswer = z.strictObject({
  outcome: z
    .union([z.literal('SUCCESS'), jobErrorCode])
    .describe("SUCCESS, or a failed job's errorCode: the answer is 200 either way, the status call itself worked"),
  jobId: z.string(),
  identifier: z.string(),
  status: jobStatus,
  priority: z.int(),
  attempts: count('render attempts started so far'),
  createdAt: instant('when the job was queued'),
  startedAt: instant('when a worker last took it').nullable(),
  finishedAt: instant('when it succeeded or failed for good').nullable(),
  fileUrl: z.url().optional().describe('once rendered'),
  pages: count('once rendered').optional(),
  bytes: count('once rendered').optional(),
  blocked: blocked.optional(),
  failed: failed.optional(),
  report: renderReport
    .optional()
    .describe('once rendered, or when a failOn rule failed its last attempt: the preflight report of that render'),
  error: z
    .string()
    .optional()
    .describe("a failed job: a message safe to show (a queued job retried after a failed attempt: that attempt's)"),
  errorCode: jobErrorCode.optional(),
});

/** A webhook endpoint as listings show it: never its key or secret. */
export const webhookEndpoint = z.strictObject({
  id: z.string(),
  url: z.url(),
  createdAt: epochMs('when it was added'),
  disabledAt: epochMs(
    'when its receiver answered 410 Gone, after which its events are held; null while active',
  ).nullable(),
});

const credentials = {
  key: z.string().describe('sent as `Authorization: Bearer <key>` with every delivery'),
  secret: z.string().describe('signs every delivery (Standard Webhooks `webhook-signature`); never sent'),
};
const released = count('held events now due to be sent');

/** Answers of the webhook endpoint routes. */
export const webhookAnswers = {
  list: z.strictObject({
    outcome: z.literal('SUCCESS'),
    webhooks: z.array(webhookEndpoint.extend({ held: count('events kept for it while disabled') })),
  }),
  created: webhookEndpoint
    .extend({ outcome: z.literal('SUCCESS'), ...credentials })
    .describe('shown only here: keep the key and secret'),
  reenabled: webhookEndpoint
    .extend({ outcome: z.literal('SUCCESS'), reenabled: z.literal(true), released })
    .describe('the URL was of a disabled endpoint, now enabled again with its id, key and secret'),
  enabled: webhookEndpoint.extend({
    outcome: z.literal('SUCCESS'),
    wasDisabled: z.boolean().describe('false when it was active already'),
    released,
  }),
  rotated: webhookEndpoint
    .extend({ outcome: z.literal('SUCCESS'), ...credentials })
    .describe('with the new key and secret'),
  removed: z.strictObject({
    outcome: z.literal('SUCCESS'),
    unsent: count('its events that will now not be sent to it'),
  }),
};

/** /healthz and /readyz. */
export const healthAnswers = {
  live: z.strictObject({ status: z.literal('ok') }),
  ready: z.strictObject({
    status: z.enum(['ready', 'not ready']),
    checks: z.strictObject({
      browser: z.boolean().describe('the browser answers'),
      database: z.boolean().describe('the database takes writes'),
      storage: z.boolean().describe('the data dir is the one opened and has room'),
      accepting: z.boolean().describe('the server is not stopping'),
    }),
    reasons: z
      .strictObject({ database: z.string().optional(), storage: z.string().optional() })
      .optional()
      .describe('why a check failed, as "<OUTCOME>: <reason>"'),
  }),
};

/** The error answer of any of `codes`; only a validation error has `errors`, only a rate-limit one `retryAfter`. */
export function errorAnswer(codes: readonly ErrorCode[]) {
  // Required where every code of the answer has it.
  const field = <T extends z.ZodType>(code: ErrorCode, schema: T) =>
    codes.every((c) => c === code) ? schema : schema.optional();
  return z.strictObject({
    outcome: z.enum(codes as [ErrorCode, ...ErrorCode[]]),
    message: z.string().describe('what went wrong, safe to show'),
    ...(codes.includes('VALIDATION_FAILED')
      ? {
          errors: field(
            'VALIDATION_FAILED',
            z
              .record(z.string(), z.array(z.string()))
              .describe('each bad field and its problems: VALIDATION_FAILED only'),
          ),
        }
      : {}),
    ...(codes.includes('RATE_LIMITED')
      ? {
          retryAfter: field(
            'RATE_LIMITED',
            z.int().min(1).describe('seconds until the window resets: RATE_LIMITED only'),
          ),
        }
      : {}),
    ...(codes.includes('RENDER_PDF_FAILED')
      ? {
          report: renderReport
            .optional()
            .describe('RENDER_PDF_FAILED of a failOn rule only: the preflight report of the render it failed'),
        }
      : {}),
  });
}

/** The webhook events, by their `type`. */
export const webhookEvents = {
  PDF_RENDERED: z.strictObject({
    type: z.literal('PDF_RENDERED'),
    payload: z.strictObject({
      id: z.string().describe("the job's identifier, as the caller gave it"),
      url: z.url().describe("the PDF's download URL"),
      jobId: z.string(),
      pages: count('pages in the PDF'),
      bytes: count('size of the PDF'),
      report: renderReport
        .optional()
        .describe("the render's preflight report (absent for a job rendered before pdfrender kept reports)"),
    }),
  }),
  RENDER_PDF_FAILED: z.strictObject({
    type: z.literal('RENDER_PDF_FAILED'),
    payload: z.strictObject({
      id: z.string().describe("the job's identifier, as the caller gave it"),
      jobId: z.string(),
      error: z.string().describe('a message safe to show'),
      errorCode: jobErrorCode,
      report: renderReport.optional().describe('when a failOn rule failed it: the preflight report of the render'),
    }),
  }),
};

/** A webhook event's body. */
export type WebhookEvent = z.infer<(typeof webhookEvents)[keyof typeof webhookEvents]>;
