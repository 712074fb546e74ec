/**
 * GET /metrics as Prometheus sees it: a real `pdfrender serve` with --metrics-port and an API key,
 * scraped every second by Debian's Prometheus, asked through Prometheus' own query API after real
 * renders (sync, a failing one, a refused one) and async jobs delivered to a real webhook receiver.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { hasPrometheus, scrapedValue, startPrometheus, type Prometheus } from './support/prometheus.js';
import { receiver, waitForArrivals, type Receiver } from './support/receiver.js';
import { until } from './support/wait.js';

const key = 'metrics-test-key';
const auth = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };

let serve: ServeProcess;
let metricsUrl: string;
let hook: Receiver;
let prometheus: Prometheus;

beforeAll(async () => {
  // Like PostgreSQL for the store's tests: missing, the test fails saying what to install.
  if (!hasPrometheus)
    throw new Error(
      "Prometheus is not installed (no prometheus on PATH): apt-get install -y prometheus (Debian's package)",
    );
  hook = await receiver();
  serve = await startServe(
    ['--metrics-port', '0', '--api-key', key, '--allow-private-webhooks', '--concurrency', '1', '--log-format', 'json'],
    { PDFRENDER_DATA_DIR: await tempDir() },
  );
  metricsUrl = await until(
    () => /Prometheus metrics at (http:\/\/\S+)/.exec(serve.stderr())?.[1],
    'the metrics line of serve',
  );
  const added = await fetch(`${serve.url}/api/webhooks`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ url: hook.url }),
  });
  expect(added.status).toBe(201);
  prometheus = await startPrometheus(new URL(metricsUrl).host, key);
}, 60_000);

afterAll(async () => {
  await prometheus?.close();
  serve?.child.kill('SIGTERM');
  await serve?.exited;
  hook?.close();
  await removeTempDirs();
});

/** A document whose #done appears after 3 s, without using the CPU meanwhile (with waitForSelector: '#done'). */
const slowDocument = (text: string) =>
  `<p>${text}</p><script>setTimeout(() => document.body.append(Object.assign(document.createElement('p'), { id: 'done', textContent: 'done' })), 3000)</script>`;

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${serve.url}${path}`, { method: 'POST', headers: { ...auth, ...headers }, body: JSON.stringify(body) });

/** The server's JSON log lines so far. */
const logLines = () =>
  serve
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('metrics, scraped by Prometheus', () => {
  it('counts renders, failures, refusals, jobs and webhook deliveries as they happened', async () => {
    for (let i = 0; i < 3; i++)
      expect((await post('/api/pdfs/render-sync', { htmlContent: `<p>${i}</p>` })).status).toBe(200);
    // The document's own failure (a script error under failOn), and a request refused before any render.
    const failing = await post('/api/pdfs/render-sync', {
      htmlContent: '<script>throw new Error("boom")</script>',
      failOn: ['scriptErrors'],
    });
    expect(failing.status).toBe(400);
    expect((await post('/api/pdfs/render-sync', { htmlContent: 5 })).status).toBe(422);
    // A caller that hangs up mid-render: cancelled, not a failure.
    const hangUp = new AbortController();
    const leaving = fetch(`${serve.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ htmlContent: slowDocument('left'), waitForSelector: '#done' }),
      signal: hangUp.signal,
    }).catch(() => 'aborted');
    // Read from /metrics directly: Prometheus scrapes only every second.
    const inFlight = () =>
      scrapedValue(metricsUrl, 'pdfrender_renders_in_flight{endpoint="sync"}', { Authorization: `Bearer ${key}` });
    await until(async () => (await inFlight()) === 1, 'the render to start');
    hangUp.abort();
    expect(await leaving).toBe('aborted');
    const jobIds: string[] = [];
    for (const identifier of ['job-a', 'job-b']) {
      const queued = await post(
        '/api/pdfs/render-async',
        { htmlContent: `<p>${identifier}</p>`, identifier },
        { 'X-Request-Id': `req-${identifier}` },
      );
      expect(queued.status).toBe(202);
      jobIds.push(((await queued.json()) as { jobId: string }).jobId);
    }
    await waitForArrivals(hook, 2, 60_000);
    expect(hook.received).toHaveLength(2);
    // One JSON line per change of each job's state, in order; the queued one names its request.
    await until(
      () => jobIds.every((jobId) => logLines().some((line) => line.jobId === jobId && line.state === 'succeeded')),
      'the succeeded lines',
    );
    for (const [index, jobId] of jobIds.entries()) {
      const lines = logLines().filter((line) => line.jobId === jobId);
      expect(lines.map((line) => line.state)).toEqual(['queued', 'rendering', 'succeeded']);
      expect(lines[0]).toMatchObject({ level: 'info', requestId: `req-job-${'ab'[index]}`, maxAttempts: 3 });
      expect(lines[2]).toMatchObject({ attempt: 1, ms: expect.any(Number) });
    }
    // The access line of each request names its ID too; no line holds a document or an identifier.
    expect(logLines().filter((line) => line.requestId === 'req-job-a' && line.path)).toHaveLength(1);
    expect(serve.stderr()).not.toContain('<p>job-a');
    expect(serve.stderr()).not.toContain('"job-a"');

    // Once Prometheus has scraped the server after the last delivery was recorded.
    await until(
      async () => (await prometheus.value('pdfrender_webhook_attempts_total{outcome="delivered"}')) === 2,
      'Prometheus to see both deliveries',
      30_000,
    );
    const value = (query: string) => prometheus.value(query);
    expect(await value('pdfrender_renders_total{endpoint="sync",outcome="success"}')).toBe(3);
    expect(await value('pdfrender_renders_total{endpoint="sync",outcome="failure",code="RENDER_PDF_FAILED"}')).toBe(1);
    expect(await value('pdfrender_renders_total{endpoint="async",outcome="success"}')).toBe(2);
    expect(await value('pdfrender_render_duration_seconds_count{endpoint="sync",outcome="success"}')).toBe(3);
    expect(await value('pdfrender_render_duration_seconds_count{endpoint="async",outcome="success"}')).toBe(2);
    expect(await value('pdfrender_jobs_total{state="queued"}')).toBe(2);
    expect(await value('pdfrender_jobs_total{state="succeeded"}')).toBe(2);
    expect(await value('pdfrender_jobs_total{state="failed"}')).toBe(0);
    expect(await value('pdfrender_webhook_delivery_lag_seconds_count')).toBe(2);
    expect(await value('pdfrender_http_requests_total{route="/api/pdfs/render-sync",status="200"}')).toBe(3);
    expect(await value('pdfrender_http_requests_total{route="/api/pdfs/render-sync",status="422"}')).toBe(1);
    expect(await value('pdfrender_http_requests_total{route="/api/pdfs/render-async",status="202"}')).toBe(2);
    expect(await value('pdfrender_renders_in_flight{endpoint="sync"}')).toBe(0);
    expect(await value('pdfrender_renders_total{endpoint="sync",outcome="cancelled"}')).toBe(1);
    expect(await value('pdfrender_renders_total{code="INTERNAL_ERROR"}')).toBeUndefined();
    expect(await value('pdfrender_browser_events_total{event="launched"}')).toBe(1);
    expect(await value('pdfrender_browser_events_total{event="crashed"}')).toBe(0);
    expect(await value('pdfrender_pages{state="busy"}')).toBe(0);
    expect(await value('pdfrender_pages{state="idle"}')).toBe(1);
    expect(await value('pdfrender_storage_healthy')).toBe(1);
    expect(await value('pdfrender_info')).toBe(1);
    // Node's default process metrics come with them.
    expect(await value('process_resident_memory_bytes')).toBeGreaterThan(0);
    // No series carries an identifier, a job id, a URL or the key.
    const everything = await prometheus.query('{job="pdfrender"}');
    const labels = JSON.stringify(everything.map((series) => series.labels));
    for (const secret of ['job-a', key, hook.url, '127.0.0.1:' + new URL(serve.url).port])
      expect(labels).not.toContain(secret);
  }, 120_000);

  it('reports the shared queue from the store: depth by priority, its oldest job, jobs rendering', async () => {
    // Documents that take 3 s without using the CPU: with one page, two are taken by the workers (one
    // renders, one waits for the page) while the third stays queued.
    const slow = (identifier: string, priority: number) =>
      post('/api/pdfs/render-async', {
        htmlContent: slowDocument(identifier),
        waitForSelector: '#done',
        identifier,
        priority,
      });
    for (const [identifier, priority] of [
      ['slow-1', 0],
      ['slow-2', 0],
      ['slow-3', 5],
    ] as const)
      expect((await slow(identifier, priority)).status).toBe(202);
    await until(
      async () =>
        (await prometheus.value('pdfrender_queue_jobs{priority="5"}')) === 1 &&
        (await prometheus.value('pdfrender_jobs_rendering')) === 2,
      'Prometheus to see one job queued at priority 5 and two rendering',
      15_000,
    );
    expect(await prometheus.value('pdfrender_queue_oldest_age_seconds')).toBeGreaterThan(0);
    expect(await prometheus.value('pdfrender_store_up')).toBe(1);
    await waitForArrivals(hook, 5, 60_000);
    await until(
      async () =>
        (await prometheus.value('pdfrender_jobs_rendering')) === 0 &&
        (await prometheus.value('pdfrender_webhook_attempts_total{outcome="delivered"}')) === 5,
      'Prometheus to see the queue drained and every event delivered',
      15_000,
    );
    expect(await prometheus.query('pdfrender_queue_jobs')).toEqual([]);
    expect(await prometheus.value('pdfrender_queue_oldest_age_seconds')).toBe(0);
    expect(await prometheus.value('pdfrender_webhook_deliveries{state="pending"}')).toBe(0);
    expect(await prometheus.value('pdfrender_webhook_oldest_pending_age_seconds')).toBe(0);
    expect(await prometheus.value('pdfrender_jobs_total{state="succeeded"}')).toBe(5);
    // Each delivered event's lag, from its job's end to the receiver's 2xx, is counted once.
    expect(await prometheus.value('pdfrender_webhook_delivery_lag_seconds_count')).toBe(5);
  }, 90_000);

  it('serves /metrics only with the API key, and only on the metrics port', async () => {
    expect((await fetch(`${metricsUrl}`)).status).toBe(401);
    const scraped = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${key}` } });
    expect(scraped.status).toBe(200);
    expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(await scraped.text()).toMatch(/^# HELP pdfrender_renders_total/m);
    expect((await fetch(`${serve.url}/metrics`, { headers: { Authorization: `Bearer ${key}` } })).status).toBe(404);
    // On loopback, a web page whose name was re-pointed at 127.0.0.1 (DNS rebinding) is refused there too.
    const { port } = new URL(metricsUrl);
    const rebound = await new Promise<number>((resolve, reject) =>
      request(
        {
          host: '127.0.0.1',
          port,
          path: '/metrics',
          headers: { Host: `evil.example:${port}`, Authorization: `Bearer ${key}` },
        },
        (response) => resolve(response.statusCode!),
      )
        .on('error', reject)
        .end(),
    );
    expect(rebound).toBe(421);
  });
});
