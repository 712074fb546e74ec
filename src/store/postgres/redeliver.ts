/**
 * `pdfrender webhooks redeliver <jobId>` on PostgreSQL, with the SQLite semantics (sqlite/redeliver.ts):
 * one transaction holding the webhooks lock exclusively, so the counts it reports are what it did
 * and two redeliveries of one job at once do not both create deliveries for a new endpoint.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { finishedJob, type FinishedJobRow } from '../job-events.js';
import type { JobEventBuilder, JobStatus, Redeliveries, Redelivery } from '../contract.js';
import { changes, locks, row, rows, transaction } from './sql.js';

const active = 'SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL';

/** Redeliveries in the database of `pool`. */
export function postgresRedeliveries(pool: pg.Pool, eventOf: JobEventBuilder): Redeliveries {
  return {
    redeliver: (jobId: string, now: number) =>
      transaction(
        pool,
        async (tx): Promise<Redelivery> => {
          const job = await row<FinishedJobRow>(
            tx,
            'SELECT id, identifier, base_url, status, file_id, pages, bytes, error, error_code FROM jobs WHERE id = $1',
            [jobId],
          );
          const first = await row<{ event_id: string; body: string }>(
            tx,
            'SELECT event_id, body FROM webhook_deliveries WHERE job_id = $1 ORDER BY id LIMIT 1',
            [jobId],
          );
          // A job swept after its retention may still have deliveries waiting; those can go again.
          if (!job && !first) return { outcome: 'no-such-job' };
          if (job && job.status !== 'succeeded' && job.status !== 'failed')
            return { outcome: 'unfinished', status: job.status as JobStatus };
          // Held ones stay held (their endpoint is disabled); one in flight (claimed_until ahead) is left alone.
          const reset = await changes(
            tx,
            `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2, last_error = NULL
           WHERE job_id = $1 AND status != 'held' AND (claimed_until IS NULL OR claimed_until <= $2) AND endpoint_id IN (${active})`,
            [jobId, now],
          );
          const event = first ?? {
            event_id: `evt_${randomBytes(12).toString('base64url')}`,
            body: JSON.stringify(eventOf(finishedJob(job!))),
          };
          const created = await changes(
            tx,
            `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
           SELECT $1, $2, e.id, $3, 'pending', $4, $4 FROM webhook_endpoints e
           WHERE e.disabled_at IS NULL AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = $2 AND d.endpoint_id = e.id)
           ORDER BY e.created_at, e.seq`,
            [event.event_id, jobId, event.body, now],
          );
          const counts = (await row<{ in_flight: number; active: number }>(
            tx,
            `SELECT (SELECT count(*) FROM webhook_deliveries WHERE job_id = $1 AND claimed_until > $2) AS in_flight, (SELECT count(*) FROM (${active}) a) AS active`,
            [jobId, now],
          ))!;
          const held = await rows<{ endpoint_id: string }>(
            tx,
            "SELECT endpoint_id FROM webhook_deliveries WHERE job_id = $1 AND status = 'held' ORDER BY id",
            [jobId],
          );
          return {
            outcome: 'done',
            queued: reset + created,
            created,
            inFlight: counts.in_flight,
            heldFor: held.map((h) => h.endpoint_id),
            active: counts.active,
          };
        },
        locks.webhookChange,
      ),
  };
}
