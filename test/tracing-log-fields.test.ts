/**
 * The trace half of issue 32 §3: with a provider registered (as start-tracing.ts does), the access
 * log and the event log name the active span in both formats, the request span follows the caller's
 * traceparent, and a stored traceparent parents a later span; with none, the lines carry no trace id.
 */
import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventLogWriter } from '../src/event-log.js';
import { accessLog, accessLogWriter } from '../src/server/edge/access-log.js';
import type { AccessLogEntry } from '../src/server/deps.js';
import { httpSpan } from '../src/server/edge/http-span.js';
import { contextOf, currentTraceparent, inContextOf, inSpan, traceFields } from '../src/tracing/spans.js';
import { startTracing, tracingWanted } from '../src/cli/serve/start-tracing.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';

/** An app as createApp orders the two: the span outside the access log. */
function app(entries: AccessLogEntry[]) {
  const hono = new Hono();
  hono.use(httpSpan());
  hono.use(accessLog((entry) => entries.push(entry)));
  hono.get('/api/pdfs/jobs/:jobId', (c) => c.json({ jobId: c.req.param('jobId') }));
  hono.get('/boom', () => {
    throw new Error('the server broke');
  });
  return hono;
}

describe('without a provider (tracing off)', () => {
  it('logs no trace id and has no traceparent to store', async () => {
    const entries: AccessLogEntry[] = [];
    await app(entries).request('/api/pdfs/jobs/j1', { headers: { traceparent: `00-${traceId}-${callerSpanId}-01` } });
    expect(entries[0]).toBeDefined();
    expect(entries[0]!.traceId).toBeUndefined();
    await inSpan('job enqueue', async () => expect(currentTraceparent()).toBeUndefined());
    const lines: string[] = [];
    eventLogWriter('json', (line) => lines.push(line))({ level: 'info', message: 'hello' });
    expect(JSON.parse(lines[0]!)).not.toHaveProperty('traceId');
  });
});

describe('with a provider', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  beforeAll(() => provider.register());
  beforeEach(() => exporter.reset());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it('names the request span, a child of the caller traceparent, in the access log (JSON and pretty)', async () => {
    const entries: AccessLogEntry[] = [];
    const response = await app(entries).request('/api/pdfs/jobs/j1', {
      headers: { traceparent: `00-${traceId}-${callerSpanId}-01` },
    });
    expect(response.status).toBe(200);
    const span = exporter.getFinishedSpans().find((finished) => finished.name === 'GET /api/pdfs/jobs/:jobId')!;
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.parentSpanContext?.spanId).toBe(callerSpanId);
    // The route's pattern, never the path with its id.
    expect(JSON.stringify(span.attributes)).not.toContain('j1');
    expect(entries[0]).toMatchObject({ traceId, spanId: span.spanContext().spanId });

    const lines: string[] = [];
    accessLogWriter('json', (line) => lines.push(line))(entries[0]!);
    accessLogWriter('pretty', (line) => lines.push(line))(entries[0]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ traceId, spanId: span.spanContext().spanId });
    expect(lines[1]).toMatch(new RegExp(` trace ${traceId}$`));
  });

  it("writes a line in a stored job's trace (a job whose lease ran out) without making a span", () => {
    const lines: string[] = [];
    inContextOf(`00-${traceId}-${callerSpanId}-01`, () =>
      eventLogWriter('json', (line) => lines.push(line))({ level: 'warn', message: 'job retried', jobId: 'job_1' }),
    );
    expect(JSON.parse(lines[0]!)).toMatchObject({ jobId: 'job_1', traceId, spanId: callerSpanId });
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it("logs the caller's trace id also when the caller asked for it not to be sampled, and makes no probe span", async () => {
    const entries: AccessLogEntry[] = [];
    await app(entries).request('/api/pdfs/jobs/j2', { headers: { traceparent: `00-${traceId}-${callerSpanId}-00` } });
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(entries[0]).toMatchObject({ traceId });
    const probes: AccessLogEntry[] = [];
    const probed = new Hono();
    probed.use(httpSpan());
    probed.use(accessLog((entry) => probes.push(entry)));
    probed.get('/healthz', (c) => c.json({ status: 'ok' }));
    expect((await probed.request('/healthz')).status).toBe(200);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(probes[0]!.traceId).toBeUndefined();
  });

  it('marks a 5xx request span as an error', async () => {
    const hono = app([]);
    hono.onError((_, c) => c.json({}, 500));
    expect((await hono.request('/boom')).status).toBe(500);
    const span = exporter.getFinishedSpans().find((finished) => finished.name === 'GET /boom')!;
    expect(span.status.code).toBe(2);
    expect(span.attributes['http.response.status_code']).toBe(500);
  });

  it('puts the active span in event-log lines (JSON and pretty)', async () => {
    const lines: string[] = [];
    const json = eventLogWriter('json', (line) => lines.push(line));
    const pretty = eventLogWriter('pretty', (line) => lines.push(line));
    const ids = await inSpan('job render', async (span) => {
      json({ level: 'warn', message: 'async render failed', jobId: 'j1' });
      pretty({ level: 'warn', message: 'async render failed', jobId: 'j1' });
      return span.spanContext();
    });
    expect(JSON.parse(lines[0]!)).toMatchObject({ jobId: 'j1', traceId: ids.traceId, spanId: ids.spanId });
    expect(lines[1]).toContain(`(job j1 trace ${ids.traceId})`);
    expect(traceFields()).toEqual({});
  });

  it('parents a span on a stored traceparent, as a job rendered elsewhere is', async () => {
    const stored = await inSpan('job enqueue', async () => currentTraceparent());
    expect(stored).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    await inSpan('job render', async () => undefined, { parent: contextOf(stored) });
    const enqueue = exporter.getFinishedSpans().find((finished) => finished.name === 'job enqueue')!;
    const render = exporter.getFinishedSpans().find((finished) => finished.name === 'job render')!;
    expect(render.spanContext().traceId).toBe(enqueue.spanContext().traceId);
    expect(render.parentSpanContext?.spanId).toBe(enqueue.spanContext().spanId);
  });

  it('records a failure by its code, not its message', async () => {
    await expect(
      inSpan('render', async () => {
        throw new Error('waitForSelector "#secret-customer" never matched');
      }),
    ).rejects.toThrow();
    const span = exporter.getFinishedSpans().find((finished) => finished.name === 'render')!;
    expect(span.status.code).toBe(2);
    expect(JSON.stringify([span.status, span.attributes, span.events])).not.toContain('secret-customer');
  });
});

describe('tracingWanted', () => {
  it('is on with an OTLP endpoint, unless the SDK is disabled', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' })).toBe(false);
    expect(tracingWanted({ OTEL_SERVICE_NAME: 'pdfrender' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });

  it('refuses at start what it cannot honour, naming the variable: no URL, or a gRPC collector', async () => {
    const start = (env: NodeJS.ProcessEnv) => startTracing(env, '0.0.0', () => undefined);
    await expect(start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).rejects.toThrow(
      /^OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    await expect(
      start({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
    ).rejects.toThrow(/^OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: pdfrender sends traces over OTLP\/HTTP/);
  });
});
