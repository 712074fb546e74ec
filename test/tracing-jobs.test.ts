/**
 * An async job's trace across two real `pdfrender serve` instances on one PostgreSQL (issue 32 §2):
 * queued on instance a (whose workers are busy with other jobs), rendered on instance b, and
 * delivered to a real webhook receiver; one trace from the caller's traceparent to the webhook,
 * whose POST carries the delivery span's traceparent.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { addEndpoint, eventOf, jobStatus, renderAsync, stopInstances } from './support/instances.js';
import { otlpReceiver, type OtlpReceiver } from './support/otlp-receiver.js';
import { startCluster, type Cluster } from './support/postgres.js';
import { receiver, type Receiver } from './support/receiver.js';
import { until } from './support/wait.js';

const traceId = '0af7651916cd43dd8448eb211c80319c';
const callerSpanId = 'b7ad6b7169203331';

let cluster: Cluster;
let hook: Receiver;
let otlp: OtlpReceiver;
let database: string;
const instances: ServeProcess[] = [];

/** An instance on the shared database, tracing to the test's receiver as service.instance.id `name`. */
async function instance(name: string): Promise<ServeProcess> {
  const dir = await tempDir();
  const started = await startServe(
    [
      ...['--database', database, '--data-dir', join(dir, 'data'), '--concurrency', '1'],
      ...['--allow-private-webhooks', '--shutdown-grace', '1s'],
    ],
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${name}`,
    },
  );
  instances.push(started);
  return started;
}

beforeAll(async () => {
  [cluster, hook, otlp] = await Promise.all([startCluster(), receiver(), otlpReceiver()]);
  database = await cluster.createDatabase('tracing');
  await addEndpoint(database, hook.url);
}, 120_000);
afterAll(async () => {
  await stopInstances(instances);
  hook?.close();
  otlp?.close();
  await cluster?.stop();
  await removeTempDirs();
}, 60_000);

describe('an async job queued on one instance and rendered on another', () => {
  it('is one trace: request and enqueue on a, job render on b, the webhook delivery, and a traceparent at the receiver', async () => {
    const a = await instance('a');
    // a's workers (two loops for its one page) are kept busy, so the job is left for b.
    for (const identifier of ['blocker-1', 'blocker-2']) {
      const blocker = await renderAsync(a.url, { htmlContent: '<p>blocker</p>', waitDelay: 8_000, identifier });
      expect(blocker.status).toBe(202);
      await until(
        async () => (await jobStatus(a.url, blocker.body.jobId!)).status === 'rendering',
        `a to take ${identifier}`,
      );
    }
    const queued = await fetch(`${a.url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ htmlContent: '<p>traced</p>', identifier: 'traced-job', waitForNetworkIdle: true }),
    });
    expect(queued.status).toBe(202);
    const { jobId } = (await queued.json()) as { jobId: string };
    await instance('b');

    const arrival = await until(
      () => hook.received.find((received) => eventOf(received).payload.jobId === jobId),
      'the webhook of the traced job',
      60_000,
    );
    expect(eventOf(arrival).type).toBe('PDF_RENDERED');
    const ofJob = () => otlp.spans.filter((span) => span.attributes['pdfrender.job.id'] === jobId);
    await until(
      () =>
        ['job enqueue', 'job render', 'webhook delivery'].every((name) => ofJob().some((span) => span.name === name)),
      'the spans of the job',
      20_000,
    );
    const request = otlp.named('POST /api/pdfs/render-async').find((span) => span.traceId === traceId)!;
    expect(request).toMatchObject({ parentSpanId: callerSpanId, resource: { 'service.instance.id': 'a' } });
    const enqueue = ofJob().find((span) => span.name === 'job enqueue')!;
    // OTLP's kinds: 4 producer (the enqueue), 5 consumer (the render), 3 client (the delivery).
    expect(enqueue).toMatchObject({
      traceId,
      parentSpanId: request.spanId,
      kind: 4,
      resource: { 'service.instance.id': 'a' },
    });
    const render = ofJob().find((span) => span.name === 'job render')!;
    expect(render).toMatchObject({
      traceId,
      parentSpanId: enqueue.spanId,
      kind: 5,
      resource: { 'service.instance.id': 'b' },
      attributes: { 'pdfrender.job.attempt': 1 },
    });
    // The engine's spans under the job's, as under a request's.
    const [engineRender] = otlp.childrenOf(render).filter((span) => span.name === 'render');
    expect(otlp.childrenOf(engineRender!).map((span) => span.name)).toContain('waitForNetworkIdle');
    const delivery = ofJob().find((span) => span.name === 'webhook delivery')!;
    expect(delivery).toMatchObject({
      traceId,
      parentSpanId: enqueue.spanId,
      kind: 3,
      attributes: { 'http.response.status_code': 200, 'pdfrender.webhook.attempt': 1 },
    });
    // The receiver can continue the trace from the delivery's span.
    expect(arrival.headers.traceparent).toBe(`00-${traceId}-${delivery.spanId}-01`);
    // The caller's identifier is in no span.
    expect(JSON.stringify(otlp.spans)).not.toContain('traced-job');
  }, 120_000);
});
