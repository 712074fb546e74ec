/**
 * The OpenAPI answers of errors: an operation names the codes it can raise, and each becomes part of
 * the answer of its status (errors.ts maps codes to statuses), with the error body's schema from
 * api-answers.ts and the headers that status carries.
 */
import { errorAnswer, renderReport } from './api-answers.js';
import { httpStatusFor, type ErrorCode } from '../../errors.js';
import { embedded } from './openapi-schema.js';

/** Why each code is answered, as the document says it. */
const meanings: Record<ErrorCode, string> = {
  RENDER_PDF_FAILED:
    'the document could not be rendered (deadline, crash, a url that did not load, a page range past the end)',
  VALIDATION_FAILED: 'fields of the request are invalid; `errors` names each one',
  USAGE: 'wrong command-line usage (the CLI only)',
  BROWSER_NOT_FOUND: 'the browser could not be started',
  MISSING_API_KEY: 'the server has API keys and the request has none',
  INVALID_API_KEY: "the key is not one of the server's",
  RATE_LIMITED: 'the caller used up its render-sync requests for this 1-minute window',
  PAYLOAD_TOO_LARGE: "the body is larger than the server's --max-body",
  UNSUPPORTED_MEDIA_TYPE: 'the body is not JSON, multipart/form-data or urlencoded',
  NOT_FOUND: 'no such job, file or webhook endpoint (or no route for the path)',
  METHOD_NOT_ALLOWED: 'the path is served, but not with this method; Allow lists the ones it takes',
  HOST_NOT_ALLOWED: 'a server on loopback without --public-url refuses a Host that is not this machine (DNS rebinding)',
  CROSS_SITE_REQUEST: "another site's browser page asked to change something; --cors-origin allows origins",
  SHUTTING_DOWN: 'the server is stopping and takes no new work (or stopped before this render finished)',
  DUPLICATE_IDENTIFIER:
    'the same caller sent this identifier with another request within the last 60 s (the same request again answers the job it queued)',
  WEBHOOK_NOT_CONFIGURED: 'no webhook endpoint is configured, so nobody would hear of the result',
  QUEUE_FULL: 'the queue is at one of its bounds (jobs or request bytes, per caller or in total)',
  BROWSER_BUSY: 'every page stayed busy with other renders for --page-wait; the render was not started',
  STORAGE_FULL: "the server's disk is full; nothing was stored",
  STORAGE_UNAVAILABLE: 'the data dir was deleted, replaced or made read-only, or its database cannot be read',
  DATABASE_BUSY: 'another process held the database lock past --busy-timeout',
  OUTCOME_UNKNOWN:
    'the database stopped answering after the request reached it, so whether the job was queued is not known; send the same request with the same identifier again: it answers the job if it was queued (202), else queues it',
  INTERNAL_ERROR: "pdfrender failed unexpectedly; the cause is in the operator's log",
};

/** Codes whose answers say when to try again. */
const retried = new Set<ErrorCode>([
  'RATE_LIMITED',
  'SHUTTING_DOWN',
  'QUEUE_FULL',
  'BROWSER_BUSY',
  'STORAGE_FULL',
  'STORAGE_UNAVAILABLE',
  'DATABASE_BUSY',
  'OUTCOME_UNKNOWN',
]);

/** Headers of the API's answers, as components. */
export const headers = {
  'Retry-After': { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  RateLimit: {
    description:
      'the caller\'s render-sync window as it stands: `"sync";r=<requests left>;t=<seconds until it resets>`',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': { description: 'the render-sync quota: `"sync";q=<requests>;w=60`', schema: { type: 'string' } },
  Allow: { description: 'the methods the path takes', schema: { type: 'string' } },
  'Content-Location': {
    description: "the rendered PDF's download URL, as `fileUrl` would give it",
    schema: { type: 'string', format: 'uri' },
  },
  'Content-Disposition': { description: '`inline; filename="<file id>.pdf"`', schema: { type: 'string' } },
  'X-Pdfrender-Warnings': {
    description:
      'what the header and footer left out (an image or style sheet they refer to that could not be inlined), and with --allow-unknown-fields the request fields ignored as unknown, `; `-separated, ASCII, at most 4000 characters',
    schema: { type: 'string' },
  },
  'X-Pdfrender-Report': {
    description:
      "the render's preflight report as JSON in ASCII (other characters escaped as \\uXXXX): a RenderReport, or when the whole report does not fit in 4000 characters a TruncatedReport (its problems counted per kind and its timings); only with the PDF",
    content: {
      'application/json': {
        schema: {
          oneOf: [{ $ref: '#/components/schemas/RenderReport' }, { $ref: '#/components/schemas/TruncatedReport' }],
        },
      },
    },
  },
  ...Object.fromEntries(
    (['Blocked', 'Failed'] as const).flatMap((name) => [
      [
        `X-Pdfrender-${name}`,
        {
          description: `the ${name.toLowerCase()} URLs as a JSON array of ResourceIssue, ASCII, as many as fit in 4000 characters; only when there are any`,
          schema: { type: 'string' },
        },
      ],
      [
        `X-Pdfrender-${name}-Count`,
        { description: `how many URLs were ${name.toLowerCase()} in all`, schema: { type: 'integer', minimum: 1 } },
      ],
    ]),
  ),
} as const;

/** A reference to one of `headers`. */
export const header = (name: keyof typeof headers) => ({ $ref: `#/components/headers/${name}` });

/** The error answers of an operation raising `codes`, by status. */
export function errorResponses(codes: ErrorCode[]): Record<string, Record<string, unknown>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes))
    byStatus.set(httpStatusFor(code), [...(byStatus.get(httpStatusFor(code)) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: group.map((code) => `${code}: ${meanings[code]}`).join('; '),
        ...(group.some((code) => retried.has(code)) ? { headers: { 'Retry-After': header('Retry-After') } } : {}),
        ...(status === 405 ? { headers: { Allow: header('Allow') } } : {}),
        content: {
          'application/json': { schema: embedded(errorAnswer(group), 'output', { RenderReport: renderReport }) },
        },
      },
    ]),
  );
}
