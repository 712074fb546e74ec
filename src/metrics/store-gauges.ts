/**
 * Gauges of the shared store, read when Prometheus scrapes: the queue by priority and the age of its
 * oldest job, jobs rendering, webhook deliveries waiting. Every instance on one PostgreSQL reports the
 * same values (aggregate them with max(), not sum()). One read serves every gauge of a scrape; a store
 * that does not answer within a bound shows as pdfrender_store_up 0 rather than failing the scrape.
 */
import { Gauge } from 'prom-client';
import type { Clock } from '../clock.js';
import { valueWithin } from '../race.js';
import { oldestQueuedAt } from '../store/queue-overview.js';
import type { Deliveries, DeliveriesWaiting, JobQueue, QueueOverview } from '../store/contract.js';
import type { Metrics } from './metrics.js';

/** How long a scrape waits for the store: Prometheus' default scrape timeout is 10 s. */
const answerWithinMs = 3_000;
/** A read this recent serves the scrape's other gauges (prom-client collects each on its own). */
const freshForMs = 1_000;

interface Snapshot {
  now: number;
  queue: QueueOverview;
  deliveries: DeliveriesWaiting;
}

/** Register the store's gauges on `metrics`' registry. */
export function watchStore(
  metrics: Metrics,
  store: { queue: Pick<JobQueue, 'overview'>; deliveries: Pick<Deliveries, 'waiting'>; clock: Clock },
): void {
  // One read at a time: while the store is slow, later scrapes wait for the read already going (up to
  // their bound) instead of adding their statements to a pool the workers and the API need.
  let going: Promise<Snapshot | null> | undefined;
  let last: { at: number; snapshot: Snapshot | null } | undefined;
  const read = async (): Promise<Snapshot | null> => {
    if (last && performance.now() - last.at <= freshForMs) return last.snapshot;
    if (!going) {
      const now = store.clock.now();
      going = Promise.all([store.queue.overview(now), store.deliveries.waiting()])
        .then(
          ([queue, deliveries]) => ({ now, queue, deliveries }),
          () => null,
        )
        .then((snapshot) => {
          last = { at: performance.now(), snapshot };
          going = undefined;
          return snapshot;
        });
    }
    return valueWithin(going, answerWithinMs, null);
  };
  const registers = [metrics.registry];
  /** A gauge whose value (or values, by label) comes from the snapshot; a failed read leaves it empty. */
  const gauge = (name: string, help: string, labelNames: string[], set: (gauge: Gauge, s: Snapshot) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers,
      async collect() {
        const snapshot = await read();
        // After the wait, so a scrape's values all come from one read.
        this.reset();
        if (snapshot) set(this, snapshot);
      },
    });
  new Gauge({
    name: 'pdfrender_store_up',
    help: "1 when the store answered this scrape's read, else 0 (the queue and webhook gauges are then empty).",
    registers,
    async collect() {
      this.set((await read()) ? 1 : 0);
    },
  });
  gauge(
    'pdfrender_queue_jobs',
    'Async jobs queued, by priority (the shared queue: every instance reports it).',
    ['priority'],
    (g, s) => {
      for (const { priority, count } of s.queue.queued) g.set({ priority: String(priority) }, count);
    },
  );
  gauge(
    'pdfrender_queue_ready_jobs',
    'Of the queued jobs, those due now (the rest wait for a retry), by priority.',
    ['priority'],
    (g, s) => {
      for (const { priority, ready } of s.queue.queued) g.set({ priority: String(priority) }, ready);
    },
  );
  gauge('pdfrender_queue_oldest_age_seconds', 'Age of the oldest queued job, 0 with none queued.', [], (g, s) => {
    g.set(ageSeconds(s.now, oldestQueuedAt(s.queue)));
  });
  gauge('pdfrender_jobs_rendering', 'Async jobs rendering now, on every instance.', [], (g, s) =>
    g.set(s.queue.rendering),
  );
  gauge(
    'pdfrender_webhook_deliveries',
    'Webhook deliveries waiting: pending (due or retrying) or held (for a disabled endpoint).',
    ['state'],
    (g, s) => {
      g.set({ state: 'pending' }, s.deliveries.pending);
      g.set({ state: 'held' }, s.deliveries.held);
    },
  );
  gauge(
    'pdfrender_webhook_oldest_pending_age_seconds',
    'Age of the oldest pending webhook delivery, 0 with none.',
    [],
    (g, s) => g.set(ageSeconds(s.now, s.deliveries.oldestPendingCreatedAt)),
  );
}

/** Seconds from `since` to `now`, 0 when there is nothing (null) or the clocks disagree. */
const ageSeconds = (now: number, since: number | null) => (since === null ? 0 : Math.max(0, (now - since) / 1000));
