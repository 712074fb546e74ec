/**
 * The server's Prometheus metrics (prom-client): one registry per server, so two servers in one
 * process (the tests) never count into each other. Every label here takes a bounded set of values:
 * an error code, an outcome, a route pattern, a priority from -10 to 10; never an identifier, a URL
 * or a key. docs/operating.md lists each metric with its labels.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { browserEvents } from '../engine/browser/browser-host.js';
import type { JobState } from '../queue/job-change.js';
import { attemptOutcomes } from '../webhooks/sender.js';

/** Buckets of a render's time in seconds: a letter renders in ~0.05 s, the deadline defaults to 30 s. */
const renderBuckets = [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
/** Buckets of a webhook's lag in seconds: from sent at once to retried for hours. */
const lagBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 14_400];

/** Which endpoint a render served: render-sync (and the playground), or an async job. */
export type RenderEndpoint = 'sync' | 'async';

/** The registry and every instrument the server counts into. */
export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Make the registry with pdfrender's instruments, and Node's default process metrics when they are
 * `served`: those start an event-loop delay monitor and a GC observer, which a server that does not
 * serve /metrics need not run. pdfrender's own counters cost an addition each and are always kept.
 */
export function createMetrics(version: string, served = true) {
  const registry = new Registry();
  if (served) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  new Gauge({
    name: 'pdfrender_info',
    help: 'Always 1; the version of pdfrender this server runs.',
    labelNames: ['version'],
    registers,
  }).set({ version }, 1);
  const metrics = {
    registry,
    httpRequests: new Counter({
      name: 'pdfrender_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status (429 rate limited, 402 duplicate identifier, 413 too large, 422 invalid, ...).',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    renderSeconds: new Histogram({
      name: 'pdfrender_render_duration_seconds',
      help: 'Time of one render, from asking for a page to the finished PDF, by endpoint and outcome.',
      labelNames: ['endpoint', 'outcome'],
      buckets: renderBuckets,
      registers,
    }),
    renders: new Counter({
      name: 'pdfrender_renders_total',
      help: 'Renders finished, by endpoint, outcome (success; failure, with its error code; cancelled: the caller left or the server stopped) and error code (none but for a failure).',
      labelNames: ['endpoint', 'outcome', 'code'],
      registers,
    }),
    rendersInFlight: new Gauge({
      name: 'pdfrender_renders_in_flight',
      help: 'Renders started and not finished (waiting for a page or rendering), by endpoint.',
      labelNames: ['endpoint'],
      registers,
    }),
    jobs: new Counter({
      name: 'pdfrender_jobs_total',
      help: 'Async jobs changing state on this instance: queued, rendering (taken by a worker), succeeded, retried (an attempt failed, another follows), failed (for good) or released (back to the queue, the attempt not counted), with the error code as reason (none otherwise).',
      labelNames: ['state', 'reason'],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'pdfrender_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome: delivered (2xx), refused (another status), unreachable (no answer, a refused address), gone (410: the endpoint is disabled), held (the endpoint was disabled), abandoned (the endpoint was removed).',
      labelNames: ['outcome'],
      registers,
    }),
    webhookLag: new Histogram({
      name: 'pdfrender_webhook_delivery_lag_seconds',
      help: "Time from a job's PDF being ready (or its failure) to its receiver's 2xx, retries included.",
      buckets: lagBuckets,
      registers,
    }),
    browserEvents: new Counter({
      name: 'pdfrender_browser_events_total',
      help: "The browser's life: launched, launch_failed, crashed (died on its own), hung (killed by the watchdog), recycled (replaced after --browser-recycle-after renders).",
      labelNames: ['event'],
      registers,
    }),
    memoryStops: new Counter({
      name: 'pdfrender_memory_stops_total',
      help: 'Renderers stopped because the documents rendering at once passed --max-render-memory.',
      registers,
    }),
    egressBlocked: new Counter({
      name: 'pdfrender_egress_blocked_total',
      help: "URLs documents asked for that the network policy refused, by refusal code (counted from each render's report, which keeps up to 100).",
      labelNames: ['code'],
      registers,
    }),
  };
  // Series that exist from the start, at 0: Prometheus' increase() and rate() then see an event's first
  // count, and a dashboard or alert finds the series before anything happened.
  for (const endpoint of ['sync', 'async'] satisfies RenderEndpoint[]) {
    metrics.renders.inc({ endpoint, outcome: 'success', code: 'none' }, 0);
    metrics.rendersInFlight.set({ endpoint }, 0);
  }
  for (const state of ['queued', 'rendering', 'succeeded', 'retried', 'failed', 'released'] satisfies JobState[])
    metrics.jobs.inc({ state, reason: 'none' }, 0);
  for (const outcome of attemptOutcomes) metrics.webhookAttempts.inc({ outcome }, 0);
  for (const event of browserEvents) metrics.browserEvents.inc({ event }, 0);
  return metrics;
}
