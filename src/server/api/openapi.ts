/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the zod schemas that validate requests
 * (request.ts) and shape answers and webhook events (api-answers.ts), so none of them can drift
 * apart; every operation's errors come from the codes it can raise (openapi-errors.ts).
 */
import { z } from 'zod';
import {
  asyncAccepted,
  healthAnswers,
  jobAnswer,
  renderReport,
  renderSyncAnswer,
  resourceIssue,
  truncatedReport,
  webhookAnswers,
  webhookEvents,
} from './api-answers.js';
import type { ErrorCode } from '../../errors.js';
import { asyncRenderRequestSchema, renderRequestSchema } from '../../request.js';
import { errorResponses, header, headers } from './openapi-errors.js';
import { embedded } from './openapi-schema.js';
import { addWebhookRequestSchema, rotateRequestSchema } from './webhook-requests.js';

type Method = 'get' | 'post' | 'delete';

interface Operation {
  operationId: string;
  summary: string;
  description?: string;
  /** Path parameters, by name. */
  ids?: string[];
  /** The request body, by its name in components.requestBodies. */
  body?: string;
  responses: Record<number, Record<string, unknown>>;
  /** Codes this operation raises itself; those of the edge, the key check, storage and the body come with its path and method. */
  codes?: ErrorCode[];
  /** Answers carry RateLimit and RateLimit-Policy. */
  rateLimited?: boolean;
  security?: unknown[];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (name: string) => ({ 'application/json': { schema: ref(name) } });
const answer = (description: string, name: string) => ({ description, content: json(name) });
const pdf = { 'application/pdf': { schema: { type: 'string', format: 'binary' } } };

/**
 * The request bodies. JSON takes JSON's own booleans and numbers (so a typed client's `landscape:
 * "sideways"` does not compile); forms take the strings they send ("on", "1.5"). The form types
 * repeat the JSON schema: a JSON pointer into the request body is valid OpenAPI, but
 * openapi-typescript turns it into a type that does not compile.
 */
function requestBodies() {
  const body = (
    schema: z.ZodType,
    options: { forms?: boolean; required?: boolean; rule?: object; named?: string } = {},
  ) => {
    // A named request (requestSchemas) is referred to; the others are written in.
    const strict = {
      schema: options.named
        ? ref(options.named)
        : { ...embedded(schema, 'input', {}, { strict: true }), ...options.rule },
    };
    const forms = { schema: { ...embedded(schema, 'input'), ...options.rule } };
    const types = options.forms ? ['multipart/form-data', 'application/x-www-form-urlencoded'] : [];
    return {
      required: options.required ?? true,
      content: { 'application/json': strict, ...Object.fromEntries(types.map((type) => [type, forms])) },
    };
  };
  return {
    RenderRequest: body(renderRequestSchema, { forms: true, rule: oneDocument, named: 'RenderRequest' }),
    AsyncRenderRequest: body(asyncRenderRequestSchema, { forms: true, rule: oneDocument, named: 'AsyncRenderRequest' }),
    RotateRequest: body(rotateRequestSchema, { required: false }),
    WebhookEndpointRequest: body(addWebhookRequestSchema),
  };
}

// The schema's own rule that JSON Schema cannot read off it: exactly one of the two documents.
const oneDocument = { oneOf: [{ required: ['htmlContent'] }, { required: ['url'] }] };

/**
 * The render requests as named schemas, for a client to import (`components["schemas"]["RenderRequest"]`):
 * the strict JSON request without its `default` keywords, which generated clients (openapi-typescript)
 * read as "always present" and would make every field of a request that is all defaults but one
 * required. The defaults stay in each field's description.
 */
function requestSchemas() {
  const withoutDefaults = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(withoutDefaults)
      : value && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value).flatMap(([key, inner]) => (key === 'default' ? [] : [[key, withoutDefaults(inner)]])),
          )
        : value;
  const named = (schema: z.ZodType) =>
    withoutDefaults({ ...embedded(schema, 'input', {}, { strict: true }), ...oneDocument }) as Record<string, unknown>;
  return { RenderRequest: named(renderRequestSchema), AsyncRenderRequest: named(asyncRenderRequestSchema) };
}

/** Every answer and event schema, generated together so shared parts are referred to, not copied. */
function componentSchemas() {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(answerSchemas)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    io: 'output',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    uri: (id) => `#/components/schemas/${id}`,
  });
  return Object.fromEntries(Object.entries(schemas).map(([id, { $schema: _, $id: __, ...schema }]) => [id, schema]));
}

const answerSchemas: Record<string, z.ZodType> = {
  ResourceIssue: resourceIssue,
  RenderReport: renderReport,
  TruncatedReport: truncatedReport,
  RenderSyncAnswer: renderSyncAnswer,
  AsyncAccepted: asyncAccepted,
  Job: jobAnswer,
  WebhookList: webhookAnswers.list,
  WebhookCreated: webhookAnswers.created,
  WebhookReenabled: webhookAnswers.reenabled,
  WebhookEnabled: webhookAnswers.enabled,
  WebhookRotated: webhookAnswers.rotated,
  WebhookRemoved: webhookAnswers.removed,
  Live: healthAnswers.live,
  Ready: healthAnswers.ready,
  PdfRenderedEvent: webhookEvents.PDF_RENDERED,
  RenderPdfFailedEvent: webhookEvents.RENDER_PDF_FAILED,
};

const renderCodes: ErrorCode[] = ['RENDER_PDF_FAILED', 'RATE_LIMITED', 'BROWSER_NOT_FOUND'];
const syncDescription =
  'Rate limited per caller (API key, else address) per 1-minute window; every answer carries RateLimit and RateLimit-Policy.';
const networkHeaders = Object.fromEntries(
  [
    'X-Pdfrender-Blocked',
    'X-Pdfrender-Blocked-Count',
    'X-Pdfrender-Failed',
    'X-Pdfrender-Failed-Count',
    'X-Pdfrender-Warnings',
    'X-Pdfrender-Report',
  ].map((name) => [name, header(name as keyof typeof headers)]),
);

const operations: Record<string, Partial<Record<Method, Operation>>> = {
  '/api/pdfs/render-sync': {
    post: {
      operationId: 'renderSync',
      summary: 'Render a PDF within the call; answers where to download it',
      description: `${syncDescription} A RenderPDF.io client that sends \`Accept: application/pdf\` (ranked above JSON) gets the PDF itself here, as renderSyncPdf answers; typed clients call renderSyncPdf for that.`,
      body: 'RenderRequest',
      responses: { 200: { ...answer('rendered', 'RenderSyncAnswer'), headers: networkHeaders } },
      codes: renderCodes,
      rateLimited: true,
    },
  },
  '/api/pdfs/render-sync.pdf': {
    post: {
      operationId: 'renderSyncPdf',
      summary: 'Render a PDF within the call; answers the PDF itself',
      description: `${syncDescription} The same render as renderSync and the same limit; the PDF is also kept for download at Content-Location. What the document could not load is in the X-Pdfrender-* headers.`,
      body: 'RenderRequest',
      responses: {
        200: {
          description: 'the PDF',
          headers: {
            ...networkHeaders,
            'Content-Location': header('Content-Location'),
            'Content-Disposition': header('Content-Disposition'),
          },
          content: pdf,
        },
      },
      codes: renderCodes,
      rateLimited: true,
    },
  },
  '/api/pdfs/render-async': {
    post: {
      operationId: 'renderAsync',
      summary: 'Queue a render; every webhook endpoint is told when it is done',
      description:
        'Never rate limited; the queue paces async work. The queue is bounded in jobs and request bytes, per caller (API key, else address) and in total (--max-queue, --max-queue-per-caller, --max-queue-bytes, --max-queue-bytes-per-caller): beyond a bound it answers 503 QUEUE_FULL with Retry-After. The identifier is deduplicated per caller for 60 s: the same identifier with another request is 402; the same request again (a retry after a lost answer or a 504 OUTCOME_UNKNOWN) answers the job it queued, with its status now.',
      body: 'AsyncRenderRequest',
      responses: { 202: answer('queued', 'AsyncAccepted') },
      codes: ['DUPLICATE_IDENTIFIER', 'WEBHOOK_NOT_CONFIGURED', 'QUEUE_FULL', 'OUTCOME_UNKNOWN'],
    },
  },
  '/api/pdfs/jobs/{jobId}': {
    get: {
      operationId: 'getJob',
      summary: "An async job's status: queued, rendering, succeeded or failed",
      ids: ['jobId'],
      responses: {
        200: answer(
          "the job; a failed one has error (a safe message) and errorCode (RENDER_PDF_FAILED, or INTERNAL_ERROR whose cause is only in the server's log)",
          'Job',
        ),
      },
      codes: ['NOT_FOUND'],
    },
  },
  '/api/pdfs/files/{fileId}': {
    get: {
      operationId: 'getFile',
      summary: 'Download a rendered PDF (until its retention period ends)',
      description:
        'Needs no API key unless the server runs with --private-files: the URL (128 random bits) is the capability.',
      ids: ['fileId'],
      responses: {
        200: {
          description: 'the PDF',
          headers: { 'Content-Disposition': header('Content-Disposition') },
          content: pdf,
        },
      },
      codes: ['NOT_FOUND'],
      security: [{}, { apiKey: [] }],
    },
  },
  '/api/webhooks': {
    get: {
      operationId: 'listWebhooks',
      summary: 'List webhook endpoints (without their keys and secrets)',
      responses: {
        200: answer('the endpoints; held is how many events a disabled one keeps until it is enabled', 'WebhookList'),
      },
    },
    post: {
      operationId: 'addWebhook',
      summary: 'Add a webhook endpoint; the answer carries its key and signing secret, shown only here',
      description:
        'Deliveries carry the key as `Authorization: Bearer <key>` and are signed with the secret (Standard Webhooks), which is never sent. The URL of a disabled endpoint enables that endpoint again instead (the oldest such): it keeps its id, key and secret, and the events it held are sent.',
      body: 'WebhookEndpointRequest',
      responses: {
        200: answer(
          'a disabled endpoint with this URL enabled again; released is how many held events are now due',
          'WebhookReenabled',
        ),
        201: answer('added', 'WebhookCreated'),
      },
    },
  },
  '/api/webhooks/{id}/enable': {
    post: {
      operationId: 'enableWebhook',
      summary:
        'Enable a webhook endpoint that was disabled (its receiver answered 410 Gone) and send the events it held, in the order they happened',
      ids: ['id'],
      responses: { 200: answer('enabled', 'WebhookEnabled') },
      codes: ['NOT_FOUND'],
    },
  },
  '/api/webhooks/{id}/rotate': {
    post: {
      operationId: 'rotateWebhook',
      summary: "Replace a webhook endpoint's key, signing secret or both; the next delivery uses them",
      ids: ['id'],
      body: 'RotateRequest',
      responses: { 200: answer('rotated', 'WebhookRotated') },
      codes: ['NOT_FOUND'],
    },
  },
  '/api/webhooks/{id}': {
    delete: {
      operationId: 'removeWebhook',
      summary: 'Remove a webhook endpoint',
      description:
        'Events it held or had yet to send are marked failed ("the endpoint was removed"); `pdfrender webhooks redeliver <jobId>` sends a job\'s event to the current endpoints.',
      ids: ['id'],
      responses: { 200: answer('removed', 'WebhookRemoved') },
      codes: ['NOT_FOUND'],
    },
  },
  '/healthz': {
    get: {
      operationId: 'live',
      summary: 'Liveness: the process answers',
      security: [],
      responses: { 200: answer('alive', 'Live') },
    },
  },
  '/readyz': {
    get: {
      operationId: 'ready',
      summary:
        'Readiness: the browser answers, the database takes writes, the data dir is the one opened and has room, and the server is not stopping',
      security: [],
      responses: {
        200: answer('ready', 'Ready'),
        503: answer('not ready: each failed check of the database or the storage says why in reasons', 'Ready'),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openApi',
      summary: 'This document',
      security: [],
      responses: {
        200: {
          description: 'the OpenAPI 3.1 document',
          content: { 'application/json': { schema: { type: 'object' } } },
        },
      },
    },
  },
};

/** The codes every operation at `path` with `method` may meet besides its own: the edge's, and under /api/ the key check's, the lifecycle's, the store's and the body's. */
function commonCodes(path: string, method: Method, operation: Operation): ErrorCode[] {
  const changes = method !== 'get';
  return [
    'HOST_NOT_ALLOWED',
    'INTERNAL_ERROR',
    ...(changes ? (['CROSS_SITE_REQUEST'] as const) : []),
    ...(path.startsWith('/api/')
      ? (['MISSING_API_KEY', 'INVALID_API_KEY', 'SHUTTING_DOWN', 'STORAGE_UNAVAILABLE', 'DATABASE_BUSY'] as const)
      : []),
    ...(path.startsWith('/api/') && changes ? (['STORAGE_FULL', 'PAYLOAD_TOO_LARGE'] as const) : []),
    ...(operation.body ? (['UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_FAILED'] as const) : []),
  ];
}

/** An operation as the document gives it. */
function described(path: string, method: Method, operation: Operation) {
  const { ids = [], body, codes = [], rateLimited, responses, ...rest } = operation;
  const all: Record<string, Record<string, unknown>> = {
    ...responses,
    ...errorResponses([...commonCodes(path, method, operation), ...codes]),
  };
  // Every path answers other methods with 405 and Allow; an operation's own 405 is that answer.
  all[405] = { $ref: '#/components/responses/MethodNotAllowed' };
  if (rateLimited) {
    // The Host and cross-site guards answer before the rate limit's middleware runs.
    for (const [status, response] of Object.entries(all)) {
      if (!['403', '405', '421'].includes(status))
        response.headers = {
          ...(response.headers as object),
          RateLimit: header('RateLimit'),
          'RateLimit-Policy': header('RateLimit-Policy'),
        };
    }
  }
  return {
    ...rest,
    ...(ids.length > 0
      ? { parameters: ids.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })) }
      : {}),
    ...(body ? { requestBody: { $ref: `#/components/requestBodies/${body}` } } : {}),
    responses: Object.fromEntries(Object.entries(all).sort(([a], [b]) => a.localeCompare(b))),
  };
}

/** The webhook events as OpenAPI 3.1 `webhooks`: what a receiver is sent and how its answer is read. */
function webhookOperations() {
  const headerParameter = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  const event = (operationId: string, schema: string, summary: string) => ({
    post: {
      operationId,
      summary,
      description:
        "POSTed to every webhook endpoint, at least once: retried on a persisted schedule until a 2xx (a Retry-After is honoured), so receivers dedupe by webhook-id. Redirects are not followed. Verify the signature with the endpoint's secret (Standard Webhooks).",
      security: [{ webhookKey: [] }],
      parameters: [
        headerParameter('webhook-id', "the event's id: the same on every retry"),
        headerParameter('webhook-timestamp', 'seconds since 1970 when this attempt was signed'),
        headerParameter(
          'webhook-signature',
          '`v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}" keyed by the secret>`',
        ),
        headerParameter(
          'User-Agent',
          '`RenderPdfIoHTTP/1 (compatible; pdfrender/<version>)` unless --webhook-user-agent says otherwise',
        ),
      ],
      requestBody: { required: true, content: json(schema) },
      responses: {
        '2XX': { description: 'received: not sent again' },
        410: {
          description: 'Gone: the endpoint is disabled and its events are held (not dropped) until it is enabled again',
        },
        default: {
          description: 'any other answer, or none within --webhook-timeout (15 s by default): sent again later',
        },
      },
    },
  });
  return {
    PDF_RENDERED: event('pdfRendered', 'PdfRenderedEvent', 'An async job rendered its PDF'),
    RENDER_PDF_FAILED: event(
      'renderPdfFailed',
      'RenderPdfFailedEvent',
      'An async job failed for good (after its last attempt)',
    ),
  };
}

/** The playground's page and the two files it loads, when it is on. */
const playgroundOperations: Record<string, Partial<Record<Method, Operation>>> = Object.fromEntries(
  [
    [
      '/',
      'playground',
      'The playground: edit a document, its header, footer and options, and see the PDF beside them (on by default on loopback)',
      'text/html',
    ],
    ['/playground.js', 'playgroundScript', "The playground's script", 'text/javascript'],
    ['/playground.css', 'playgroundStyle', "The playground's style sheet", 'text/css'],
  ].map(([path, operationId, summary, type]) => [
    path,
    {
      get: {
        operationId: operationId!,
        summary: summary!,
        security: [],
        responses: { 200: { description: 'the file', content: { [type!]: { schema: { type: 'string' } } } } },
      },
    },
  ]),
);

/** GET /metrics, when the server serves it on its own port (--metrics without --metrics-port). */
const metricsOperations: Record<string, Partial<Record<Method, Operation>>> = {
  '/metrics': {
    get: {
      operationId: 'metrics',
      summary:
        'Prometheus metrics in the text exposition format (docs/operating.md); needs an API key when keys are set, unless --metrics-public',
      responses: {
        200: {
          description: 'the metrics',
          content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } },
        },
      },
    },
  },
};

/**
 * The OpenAPI document for this server's version (with its playground's routes and /metrics when it
 * serves them); the app puts its own base URL in `servers`.
 */
export function openApiDocument(version: string, options: { playground?: boolean; metrics?: boolean } = {}) {
  return {
    openapi: '3.1.0',
    info: {
      title: 'pdfrender',
      version,
      description:
        'HTML to PDF through headless Chromium; follows the RenderPDF.io API. Every error answers JSON {outcome, message}, outcome being its code.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/' }],
    security: [{ apiKey: [] }, {}],
    paths: Object.fromEntries(
      Object.entries({
        ...operations,
        ...(options.playground ? playgroundOperations : {}),
        ...(options.metrics ? metricsOperations : {}),
      }).map(([path, byMethod]) => [
        path,
        Object.fromEntries(
          Object.entries(byMethod).map(([method, operation]) => [method, described(path, method as Method, operation)]),
        ),
      ]),
    ),
    webhooks: webhookOperations(),
    components: {
      schemas: { ...requestSchemas(), ...componentSchemas() },
      requestBodies: requestBodies(),
      headers,
      responses: { MethodNotAllowed: errorResponses(['METHOD_NOT_ALLOWED'])[405] },
      securitySchemes: {
        apiKey: {
          type: 'http',
          scheme: 'bearer',
          description: "one of the server's API keys; required when it has any",
        },
        webhookKey: {
          type: 'http',
          scheme: 'bearer',
          description: "the webhook endpoint's key, given when it was added (never its signing secret)",
        },
      },
    },
  };
}
