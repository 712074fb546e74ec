/** What the queue's overview says across its priorities, for the metrics and `pdfrender status` alike. */
import type { QueueOverview } from './contract.js';

/** When the oldest queued job, of any priority, was queued; null when none is. */
export function oldestQueuedAt(overview: QueueOverview): number | null {
  return overview.queued.length === 0 ? null : Math.min(...overview.queued.map((p) => p.oldestCreatedAt));
}
