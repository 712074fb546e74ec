/** The statements of a redelivery (contract.ts Redeliveries), one per step for both stores. */
import type { Dialect } from './dialect.js';
import { eventColumns } from '../job-events.js';

const active = 'SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL';

// The active endpoints the event can go to: its owner's and the global ones, or for a swept job
// (owner null, not known) those that had it.
export const redeliverStatements = (d: Dialect) => ({
  job: `SELECT ${eventColumns} FROM jobs WHERE id = :jobId`,
  firstDelivery: 'SELECT event_id, body FROM webhook_deliveries WHERE job_id = :jobId ORDER BY id LIMIT 1',
  // Held ones stay held (their endpoint is disabled); one in flight (claimed_until ahead) is left alone.
  again: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = :now, last_error = NULL
     WHERE job_id = :jobId AND status != 'held' AND (claimed_until IS NULL OR claimed_until <= :now) AND endpoint_id IN (${active})
       AND (CAST(:owner AS TEXT) IS NULL OR endpoint_id IN (SELECT id FROM webhook_endpoints WHERE owner IN (:owner, '*')))`,
  // An active endpoint of the job's owner, or a global one, with no delivery of the event (added
  // since the job finished) gets one.
  create: `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
     SELECT :eventId, :jobId, e.id, :body, 'pending', :now, :now FROM webhook_endpoints e
     WHERE e.disabled_at IS NULL AND e.owner IN (:owner, '*') AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = :jobId AND d.endpoint_id = e.id)
     ORDER BY e.created_at, e.${d.writeOrder}`,
  counts: `SELECT (SELECT count(*) FROM webhook_deliveries WHERE job_id = :jobId AND claimed_until > :now) AS "inFlight",
     (SELECT count(*) FROM webhook_endpoints e WHERE e.disabled_at IS NULL AND (e.owner IN (:owner, '*')
        OR (CAST(:owner AS TEXT) IS NULL AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = :jobId AND d.endpoint_id = e.id)))) AS active`,
  held: "SELECT endpoint_id FROM webhook_deliveries WHERE job_id = :jobId AND status = 'held' ORDER BY id",
});
