/**
 * Traces of a real `pdfrender serve` (issue 32 §2): exported over OTLP/HTTP to a receiver of the
 * test's own when OTEL_EXPORTER_OTLP_ENDPOINT says so, with the caller's traceparent as the request
 * span's parent and the render's phases under it; and with no OTEL_* variable, or OTEL_SDK_DISABLED,
 * nothing exported and the SDK never loaded.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { otlpReceiver, type OtlpReceiver } from './support/otlp-receiver.js';
import { readPdf } from './support/pdf.js';
import { stopInstances } from './support/instances.js';
import { until } from './support/wait.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const callerSpanId = '00f067aa0ba902b7';
const recorder = resolve(import.meta.dirname, 'support/record-modules.mjs');

/** Start `pdfrender serve` with `env`, recording the OpenTelemetry SDK modules it loads; JSON logs. */
async function serveRecording(env: NodeJS.ProcessEnv): Promise<{ serve: ServeProcess; sdkLoaded(): Promise<string> }> {
  const dir = await tempDir();
  const modules = join(dir, 'modules.txt');
  const serve = await startServe(['--data-dir', join(dir, 'data'), '--log-format', 'json', '--concurrency', '1'], {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${recorder}`,
    RECORD_MODULES_TO: modules,
    RECORD_MODULES_MATCHING: '@opentelemetry/sdk-trace',
    ...env,
  });
  return { serve, sdkLoaded: () => readFile(modules, 'utf8').catch(() => '') };
}

const renderSync = (base: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/pdf', ...headers },
    body: JSON.stringify({
      htmlContent: '<p id="done">Traced</p>',
      waitForSelector: '#done',
      waitForNetworkIdle: true,
    }),
  });

/** The access-log lines (JSON) a server printed. */
const accessLines = (serve: ServeProcess) =>
  serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"method"'))
    .map((line) => JSON.parse(line) as { path: string; traceId?: string; spanId?: string });

describe('serve with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  let otlp: OtlpReceiver;
  let serve: ServeProcess;
  let sdkLoaded: () => Promise<string>;
  beforeAll(async () => {
    otlp = await otlpReceiver();
    ({ serve, sdkLoaded } = await serveRecording({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
    }));
  }, 60_000);
  afterAll(async () => {
    await stopInstances([serve]);
    otlp.close();
    await removeTempDirs();
  });

  it('exports the request span as a child of the incoming traceparent, the render under it and its phases under the render', async () => {
    const response = await renderSync(serve.url, { traceparent: `00-${traceId}-${callerSpanId}-01` });
    expect(response.status).toBe(200);
    const pdf = await readPdf(new Uint8Array(await response.arrayBuffer()));
    expect(pdf.pages.map((page) => page.text).join(' ')).toContain('Traced');

    const request = await until(() => otlp.named('POST /api/pdfs/render-sync')[0], 'the request span', 20_000);
    expect(request).toMatchObject({
      traceId,
      parentSpanId: callerSpanId,
      kind: 2,
      attributes: {
        'http.request.method': 'POST',
        'http.route': '/api/pdfs/render-sync',
        'http.response.status_code': 200,
      },
      resource: { 'service.name': 'pdfrender', 'deployment.environment': 'test' },
    });
    // No path, query or document text in any span.
    expect(JSON.stringify(otlp.spans)).not.toContain('Traced');
    const [render] = otlp.childrenOf(request);
    expect(render).toMatchObject({ name: 'render', attributes: { 'pdfrender.pages': 1 } });
    const phases = otlp.childrenOf(render!).map((span) => span.name);
    expect(phases.sort()).toEqual(['load', 'page wait', 'print', 'waitForNetworkIdle', 'waitForSelector']);
    expect(await sdkLoaded()).toContain('@opentelemetry/sdk-trace-node');

    // The access-log line names the request span.
    const line = accessLines(serve).find((entry) => entry.path === '/api/pdfs/render-sync');
    expect(line).toMatchObject({ traceId, spanId: request.spanId });
  }, 60_000);

  it('leaves the span of a request the caller got wrong (4xx) unmarked: only a 5xx is an error of the server', async () => {
    const missing = await fetch(`${serve.url}/api/pdfs/jobs/nope`);
    expect(missing.status).toBe(404);
    const span = await until(() => otlp.named('GET /api/pdfs/jobs/:jobId')[0], 'the 404 span', 20_000);
    expect(span.status).toBe(0);
    expect(span.attributes['http.response.status_code']).toBe(404);
  }, 30_000);
});

describe.each([
  ['no OTEL_* variable', {}],
  ['OTEL_SDK_DISABLED=true', { OTEL_SDK_DISABLED: 'true' }],
])('serve with %s', (_, env) => {
  it('exports nothing, loads no SDK and logs no trace id', async () => {
    const otlp = await otlpReceiver();
    // The endpoint only where the SDK is disabled: a server without the variables has nowhere to send to.
    const endpoint = 'OTEL_SDK_DISABLED' in env ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url } : {};
    const { serve, sdkLoaded } = await serveRecording({
      ...env,
      ...endpoint,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint.OTEL_EXPORTER_OTLP_ENDPOINT ?? '',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
    try {
      const response = await renderSync(serve.url, { traceparent: `00-${traceId}-${callerSpanId}-01` });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    } finally {
      // Stopped: a provider would flush everything it had on the way out.
      await stopInstances([serve]);
      otlp.close();
    }
    expect(otlp.spans).toEqual([]);
    expect(await sdkLoaded()).toBe('');
    const line = accessLines(serve).find((entry) => entry.path === '/api/pdfs/render-sync');
    expect(line).toBeDefined();
    expect(line!.traceId).toBeUndefined();
  }, 60_000);
});

describe('serve with a collector that never answers', () => {
  it('gives up on its last spans after a bounded wait on the way out, says so, and exits 0', async () => {
    // Takes connections and never answers: the exporter would wait out its own 10 s timeout.
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const { serve } = await serveRecording({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      // Batched until the stop, so the flush on the way out is what meets the silence.
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    try {
      const response = await renderSync(serve.url);
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      expect(serve.stderr()).toContain(`pdfrender: traces to http://127.0.0.1:${port}/v1/traces (OTLP/HTTP, JSON)`);
      const stopping = performance.now();
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
      // The exporter alone would wait 10 s for the silent collector: 2 s, then the rest of the stop.
      expect(performance.now() - stopping).toBeLessThan(9_000);
      expect(serve.stderr()).toContain(
        `tracing: the last spans could not be sent to http://127.0.0.1:${port}/v1/traces within 2 s; they are lost`,
      );
      expect(serve.stderr()).toContain('pdfrender: stopped');
    } finally {
      await stopInstances([serve]);
      sockets.forEach((socket) => socket.destroy());
      silent.close();
    }
  }, 60_000);
});
