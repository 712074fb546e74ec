/** Where a job's change of state goes: one line in the operator's log, one count in the metrics. */
import type { EventLog } from '../event-log.js';
import type { Metrics } from '../metrics/metrics.js';
import type { JobChanges } from '../queue/job-change.js';

/** Tell `events` and `metrics` of each change. */
export function reportJobChanges(events: EventLog, metrics: Metrics): JobChanges {
  return ({ level = 'info', message, ...change }) => {
    metrics.jobs.inc({ state: change.state, reason: change.code ?? 'none' });
    events({ level, message: message ? `job ${change.state}: ${message}` : `job ${change.state}`, ...change });
  };
}
