/**
 * GET /openapi.json: an OpenAPI 3.1 document whose request schema is generated from the same zod
 * schema that validates requests, so the two cannot drift apart.
 */
import { z } from 'zod';
import { asyncRenderRequestSchema, renderRequestSchema } from '../request.js';
import { rotateRequestSchema } from './webhooks-routes.js';

const outcome = (values: string[]) => ({ type: 'string', enum: values });
// Codes and reasons of blocked and failed URLs depend only on the URL and the server's settings, never on DNS.
const issueCodes = ['NETWORK_POLICY', 'NETWORK_BLOCKED', 'FILE_NOT_ALLOWED', 'SCHEME_NOT_ALLOWED', 'HTTP_ERROR', 'LOAD_FAILED', 'TEMPLATE_UNSUPPORTED', 'RELATIVE_URL'];
const resourceIssues = (description: string) => ({
  type: 'array',
  description,
  items: { type: 'object', required: ['url', 'code', 'reason'], properties: { url: { type: 'string' }, code: { type: 'string', enum: issueCodes }, reason: { type: 'string' } } },
});
const errorBody = (outcomes: string[], extra: Record<string, unknown> = {}, why?: string) => ({
  description: why ? `${outcomes.join(' / ')}: ${why}` : outcomes.join(' / '),
  content: { 'application/json': { schema: { type: 'object', required: ['outcome'], properties: { outcome: outcome(outcomes), message: { type: 'string' }, ...extra } } } },
});

const retryAfter = { 'Retry-After': { schema: { type: 'integer' }, description: 'seconds to wait before trying again' } };
/** Refusals of anything that stores: the data dir is gone or its database locked elsewhere (503), or its disk full (507). */
const storageOutcomes = ['STORAGE_UNAVAILABLE', 'DATABASE_BUSY'];
const unavailable = (outcomes: string[]) => ({
  503: {
    ...errorBody([...outcomes, ...storageOutcomes], {}, 'the server cannot take this now: STORAGE_UNAVAILABLE when its data dir was deleted, replaced or made read-only, DATABASE_BUSY when another process held the database lock past --busy-timeout'),
    headers: retryAfter,
  },
  507: { ...errorBody(['STORAGE_FULL'], {}, "the server's disk is full; nothing was stored"), headers: retryAfter },
});

/** The OpenAPI document for this server's version. */
export function openApiDocument(version: string) {
  const jsonSchema = (schema: z.ZodType) => {
    const generated = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' });
    delete (generated as { $schema?: string }).$schema;
    // The schema's own rule that JSON Schema cannot read off it: exactly one of the two documents.
    return { ...generated, oneOf: [{ required: ['htmlContent'] }, { required: ['url'] }] };
  };
  const bodiesOf = (name: string) =>
    Object.fromEntries(['application/json', 'multipart/form-data', 'application/x-www-form-urlencoded'].map((type) => [type, { schema: { $ref: `#/components/schemas/${name}` } }]));
  const bodies = bodiesOf('RenderRequest');
  const auth = { 401: errorBody(['MISSING_API_KEY', 'INVALID_API_KEY']) };
  // A webhook endpoint named in the path, and what every call on one may answer besides its own.
  const endpointId = { name: 'id', in: 'path', required: true, schema: { type: 'string' } };
  const endpointRefusals = { ...auth, 404: errorBody(['NOT_FOUND']), ...unavailable(['SHUTTING_DOWN']) };
  const document = {
    openapi: '3.1.0',
    info: { title: 'pdfrender', version, description: 'HTML to PDF through headless Chromium; follows the RenderPDF.io API.' },
    components: {
      schemas: { RenderRequest: jsonSchema(renderRequestSchema), AsyncRenderRequest: jsonSchema(asyncRenderRequestSchema) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'required when the server has API keys configured' } },
    },
    security: [{ bearer: [] }, {}],
    paths: {
      '/api/pdfs/render-sync': {
        post: {
          summary: 'Render a PDF within the call',
          description: 'Rate limited per caller per 1-minute window. Send Accept: application/pdf to get the PDF itself instead of JSON.',
          requestBody: { required: true, content: bodies },
          responses: {
            200: {
              description: 'rendered',
              headers: { RateLimit: { schema: { type: 'string' } }, 'RateLimit-Policy': { schema: { type: 'string' } } },
              content: {
                'application/json': {
                  schema: {
                    type: 'object',
                    required: ['outcome', 'fileUrl', 'pages', 'bytes'],
                    properties: { outcome: outcome(['SUCCESS']), fileUrl: { type: 'string', format: 'uri' }, pages: { type: 'integer' }, bytes: { type: 'integer' }, blocked: resourceIssues('URLs the network policy refused'), failed: resourceIssues('URLs that failed to load') },
                  },
                },
                'application/pdf': { schema: { type: 'string', format: 'binary' } },
              },
            },
            400: errorBody(['RENDER_PDF_FAILED']),
            ...auth,
            413: errorBody(['PAYLOAD_TOO_LARGE']),
            415: errorBody(['UNSUPPORTED_MEDIA_TYPE']),
            422: errorBody(['VALIDATION_FAILED'], { errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } }),
            429: errorBody(['RATE_LIMITED'], { retryAfter: { type: 'integer' } }),
            500: errorBody(['INTERNAL_ERROR']),
            ...unavailable(['SHUTTING_DOWN']),
          },
        },
      },
      '/api/pdfs/render-async': {
        post: {
          summary: 'Queue a render; every webhook endpoint is told when it is done',
          description:
            'Never rate limited; the queue paces async work. The queue is bounded in jobs and request bytes, per caller (API key, else address) and in total (--max-queue, --max-queue-per-caller, --max-queue-bytes, --max-queue-bytes-per-caller): beyond a bound it answers 503 QUEUE_FULL with Retry-After.',
          requestBody: { required: true, content: bodiesOf('AsyncRenderRequest') },
          responses: {
            202: {
              description: 'queued',
              content: {
                'application/json': {
                  schema: { type: 'object', properties: { outcome: outcome(['SUCCESS']), identifier: { type: 'string' }, jobId: { type: 'string' }, status: outcome(['queued']), statusUrl: { type: 'string', format: 'uri' } } },
                },
              },
            },
            ...auth,
            402: errorBody(['DUPLICATE_IDENTIFIER']),
            412: errorBody(['WEBHOOK_NOT_CONFIGURED']),
            413: errorBody(['PAYLOAD_TOO_LARGE']),
            415: errorBody(['UNSUPPORTED_MEDIA_TYPE']),
            422: errorBody(['VALIDATION_FAILED'], { errors: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } } }),
            ...unavailable(['QUEUE_FULL', 'SHUTTING_DOWN']),
          },
        },
      },
      '/api/pdfs/jobs/{jobId}': {
        get: {
          summary: "An async job's status: queued, rendering, succeeded or failed",
          parameters: [{ name: 'jobId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: '{outcome, jobId, identifier, status, priority, attempts, createdAt, startedAt, finishedAt, fileUrl?, pages?, bytes?, blocked?, failed?, error?, errorCode?}; error is a safe message and errorCode its code (RENDER_PDF_FAILED, or INTERNAL_ERROR whose cause is only in the server log)' }, ...auth, 404: errorBody(['NOT_FOUND']) },
        },
      },
      '/api/pdfs/files/{fileId}': {
        get: {
          summary: 'Download a rendered PDF (until its retention period ends)',
          parameters: [{ name: 'fileId', in: 'path', required: true, schema: { type: 'string' } }],
          responses: { 200: { description: 'the PDF', content: { 'application/pdf': { schema: { type: 'string', format: 'binary' } } } }, ...auth, 404: errorBody(['NOT_FOUND']) },
        },
      },
      '/api/webhooks': {
        get: {
          summary: 'List webhook endpoints (without their keys and secrets)',
          responses: { 200: { description: '{outcome, webhooks: [{id, url, createdAt, disabledAt, held}]}; disabledAt is when its receiver answered 410 Gone, held how many events it keeps until enabled' }, ...auth },
        },
        post: {
          summary: 'Add a webhook endpoint; the answer carries its key and signing secret, shown only here',
          description:
            'Deliveries carry the key as `Authorization: Bearer <key>` and are signed with the secret (Standard Webhooks), which is never sent. The URL of a disabled endpoint enables that endpoint again instead (the oldest such): it keeps its id, key and secret, and the events it held are sent.',
          requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' } } } } } },
          responses: {
            200: { description: 'a disabled endpoint with this URL enabled again: {outcome, id, url, createdAt, disabledAt: null, reenabled: true, released}, released being how many held events are now due' },
            201: { description: '{outcome, id, url, key, secret, createdAt, disabledAt}' },
            ...auth,
            422: errorBody(['VALIDATION_FAILED']),
            ...unavailable(['SHUTTING_DOWN']),
          },
        },
      },
      '/api/webhooks/{id}/enable': {
        post: {
          summary: 'Enable a webhook endpoint that was disabled (its receiver answered 410 Gone) and send the events it held, in the order they happened',
          parameters: [endpointId],
          responses: {
            200: { description: '{outcome, id, url, createdAt, disabledAt: null, wasDisabled, released}: wasDisabled false when it was active already; released, how many held events are now due' },
            ...endpointRefusals,
          },
        },
      },
      '/api/webhooks/{id}/rotate': {
        post: {
          summary: "Replace a webhook endpoint's key, signing secret or both; the next delivery uses them",
          parameters: [endpointId],
          requestBody: { required: false, content: { 'application/json': { schema: jsonSchema(rotateRequestSchema) } } },
          responses: { 200: { description: '{outcome, id, url, key, secret, createdAt, disabledAt}, with the new values' }, ...endpointRefusals, 422: errorBody(['VALIDATION_FAILED']) },
        },
      },
      '/api/webhooks/{id}': {
        delete: {
          summary: 'Remove a webhook endpoint',
          description: 'Events it held or had yet to send are marked failed ("the endpoint was removed"); `pdfrender webhooks redeliver <jobId>` sends a job\'s event to the current endpoints.',
          parameters: [endpointId],
          responses: { 200: { description: '{outcome, unsent}: removed; unsent, how many of its events will not be sent to it' }, ...endpointRefusals },
        },
      },
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: { description: 'the process answers' } } } },
      '/readyz': {
        get: {
          summary: 'Readiness: the browser answers, the database takes writes, the data dir is the one opened and has room, and the server is not stopping',
          security: [],
          responses: {
            200: { description: '{status: "ready", checks: {browser, database, storage, accepting}}' },
            503: { description: '{status: "not ready", checks, reasons: {database?, storage?}}: each failed check of the database or the storage says why, as "<OUTCOME>: <reason>" (STORAGE_FULL, STORAGE_UNAVAILABLE, DATABASE_BUSY)' },
          },
        },
      },
    },
  };
  // Refusals at the edge, before any route: every operation may meet the Host check, and every
  // state-changing one the cross-site check.
  for (const operations of Object.values(document.paths) as Array<Record<string, { responses: Record<number, unknown> }>>) {
    for (const [method, operation] of Object.entries(operations)) {
      operation.responses[421] = errorBody(['HOST_NOT_ALLOWED'], {}, 'a server on loopback without --public-url refuses a Host that is not this machine (DNS rebinding)');
      if (method === 'post' || method === 'delete') {
        operation.responses[403] = errorBody(['CROSS_SITE_REQUEST'], {}, "another site's browser page asked to change something; --cors-origin allows origins");
      }
    }
  }
  return document;
}
