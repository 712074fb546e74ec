/**
 * The statements of webhook deliveries (contract.ts Deliveries), one per operation for both
 * stores. The claim is each store's own: SQLite reads the attempts in flight per endpoint from the
 * sender's counts, PostgreSQL from the table in a database function (every instance's).
 */
import type { Delivery } from '../contract.js';
import { retryDelay, retrySchedule } from '../delivery-retry.js';
import type { Dialect } from './dialect.js';

/** The columns of a Delivery in the rows of `from`, named as its fields, with its job's trace context (`trace`, by default `from`'s). */
export const deliveryColumns = (from: string, trace = `${from}.trace_context`) =>
  `${from}.id, ${from}.event_id AS "eventId", ${from}.job_id AS "jobId", ${from}.endpoint_id AS "endpointId", ${from}.body, ${from}.attempts,
   ${from}.created_at AS "createdAt", ${trace} AS "traceContext"`;

// The columns of a log entry, named as its fields.
const logEntries = `SELECT d.id, d.event_id AS "eventId", d.job_id AS "jobId", d.endpoint_id AS "endpointId", e.url, d.status, d.attempts,
    d.last_status AS "lastStatus", d.last_error AS "lastError", d.created_at AS "createdAt",
    CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS "nextAttemptAt", d.delivered_at AS "deliveredAt"
  FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id`;

/** An endpoint of the delivery's row is disabled. */
const endpointDisabled =
  'EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.disabled_at IS NOT NULL)';

export const deliveryStatements = (d: Dialect) => ({
  // One row per endpoint of the job's owner and per global one, read in the same statement, so the
  // event and the endpoint list agree; a disabled endpoint's row is held, so the event is kept for it
  // rather than never written.
  queueEvent: `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
     SELECT :eventId, :jobId, id, :body, CASE WHEN disabled_at IS NULL THEN 'pending' ELSE 'held' END, :now, :now
     FROM webhook_endpoints WHERE owner IN (:owner, '*') ORDER BY created_at, ${d.writeOrder}`,
  // Only attempts still claimed (not settled since): a lease renewed after its outcome was written would hide the next attempt.
  renew: `UPDATE webhook_deliveries SET next_attempt_at = :until, claimed_until = :until
     WHERE ${d.among('id', 'ids', 'bigint')} AND status = 'pending' AND claimed_until IS NOT NULL`,
  succeeded: `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = :status, last_error = NULL,
     delivered_at = :now, claimed_until = NULL WHERE id = :id`,
  failed: `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = :status, last_error = :error, claimed_until = NULL,
     status = CASE WHEN attempts + 1 > :maxAttempts THEN 'failed' ELSE 'pending' END, next_attempt_at = :nextAttemptAt WHERE id = :id`,
  log: `${logEntries} ORDER BY d.id DESC LIMIT :limit`,
  failedLog: `${logEntries} WHERE d.status = 'failed' ORDER BY d.id DESC LIMIT :limit`,
  // A 410 counts as an attempt (attempted = 1, its status and error kept); an endpoint found disabled
  // before sending does not. Held only while its endpoint is still disabled: one enabled again
  // meanwhile (between the sender's look and this write) gets the delivery due now instead, or it
  // would wait for the next enable.
  hold: `UPDATE webhook_deliveries SET claimed_until = NULL, attempts = attempts + :attempted,
       last_status = coalesce(:status, last_status), last_error = coalesce(:error, last_error),
       status = CASE WHEN ${endpointDisabled} THEN 'held' ELSE 'pending' END,
       next_attempt_at = CASE WHEN ${endpointDisabled} THEN next_attempt_at ELSE :now END
     WHERE id = :id`,
  abandon: `UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = :status, last_error = :error,
     claimed_until = NULL WHERE id = :id`,
  // Every endpoint, with counts by status read from the webhook_deliveries_endpoint index (endpoint_id,
  // status), and the last error of its newest delivery that has one (a delivered one has none).
  // There is no time of each attempt: the newest delivery stands for the most recent attempt.
  overview: `SELECT e.id AS "endpointId", e.url, e.owner, e.disabled_at AS "disabledAt",
       count(d.id) FILTER (WHERE d.status = 'pending') AS pending, count(d.id) FILTER (WHERE d.status = 'held') AS held,
       count(d.id) FILTER (WHERE d.status = 'failed') AS failed, count(d.id) FILTER (WHERE d.status = 'delivered') AS delivered,
       min(d.created_at) FILTER (WHERE d.status = 'pending') AS "oldestPendingCreatedAt", max(d.delivered_at) AS "lastDeliveredAt",
       last.last_error AS "lastError", last.last_status AS "lastStatus"
     FROM webhook_endpoints e
       LEFT JOIN webhook_deliveries d ON d.endpoint_id = e.id
       LEFT JOIN webhook_deliveries last ON last.id = (
         SELECT max(f.id) FROM webhook_deliveries f WHERE f.endpoint_id = e.id AND f.last_error IS NOT NULL)
     GROUP BY e.id, e.url, e.owner, e.disabled_at, e.created_at, e.${d.writeOrder}, last.last_error, last.last_status
     ORDER BY e.created_at, e.${d.writeOrder}`,
});

/** The parameters of `hold`: an answer (a 410) counts as an attempt, with its status and error kept. */
export const holdParams = (id: number, now: number, answered?: { status: number; error: string }) => ({
  id,
  now,
  attempted: answered ? 1 : 0,
  status: answered?.status ?? null,
  error: answered?.error ?? null,
});

/** The parameters of `failed`: the attempt counted, and the next one scheduled (or none, after the last). */
export const failedParams = (
  delivery: Delivery,
  status: number | null,
  error: string,
  now: number,
  retryAfterMs = 0,
) => ({
  id: delivery.id,
  status,
  error,
  maxAttempts: retrySchedule.length,
  nextAttemptAt: now + retryDelay(delivery.attempts, retryAfterMs),
});
