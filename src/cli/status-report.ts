/**
 * What `pdfrender status` reports, gathered from the store in one go: the queue with its ages, the
 * failures of a window, each endpoint's deliveries (never its key or secret). `--json` prints it
 * as it is (docs/operating.md documents its shape); status-text.ts lays it out as text.
 */
import { oldestQueuedAt } from '../store/queue-overview.js';
import type { EndpointDeliveries, JobFailures, QueueOverview, Store } from '../store/contract.js';

/** What `pdfrender status --json` prints: times are ms since the epoch by the servers' clock, ages ms before `at`. */
export interface StatusReport {
  at: number;
  queue: {
    queued: number;
    ready: number;
    rendering: number;
    /** The age of the oldest queued job; null when none is queued. */
    oldestAgeMs: number | null;
    /** Highest priority first, only those with jobs queued. */
    byPriority: { priority: number; queued: number; ready: number; oldestCreatedAt: number; oldestAgeMs: number }[];
  };
  failures: {
    /** Jobs that failed for good at or after this time (`at` minus --since). */
    since: number;
    sinceMs: number;
    /** By error code, the most recent first. */
    byCode: JobFailures[];
  };
  /** Every endpoint, oldest first; never its key or secret. */
  webhooks: (Omit<EndpointDeliveries, 'endpointId'> & { id: string; oldestPendingAgeMs: number | null })[];
}

/** The report of `store` at `now`, over failures of the last `sinceMs`. */
export async function statusReport(store: Store, now: number, sinceMs: number): Promise<StatusReport> {
  const since = now - sinceMs;
  const [overview, failures, endpoints] = await Promise.all([
    store.queue.overview(now),
    store.queue.failures(since),
    store.deliveries.overview(now),
  ]);
  return {
    at: now,
    queue: queueReport(overview, now),
    failures: { since, sinceMs, byCode: failures },
    webhooks: endpoints.map(({ endpointId, ...endpoint }) => ({
      id: endpointId,
      ...endpoint,
      oldestPendingAgeMs: endpoint.oldestPendingCreatedAt === null ? null : now - endpoint.oldestPendingCreatedAt,
    })),
  };
}

/** The queue's totals and its priorities, with ages counted from `now`. */
function queueReport(overview: QueueOverview, now: number): StatusReport['queue'] {
  const { queued, rendering } = overview;
  const oldest = oldestQueuedAt(overview);
  return {
    queued: queued.reduce((sum, p) => sum + p.count, 0),
    ready: queued.reduce((sum, p) => sum + p.ready, 0),
    rendering,
    oldestAgeMs: oldest === null ? null : now - oldest,
    byPriority: queued.map((p) => ({
      priority: p.priority,
      queued: p.count,
      ready: p.ready,
      oldestCreatedAt: p.oldestCreatedAt,
      oldestAgeMs: now - p.oldestCreatedAt,
    })),
  };
}
