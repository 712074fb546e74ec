/**
 * `pdfrender webhooks redeliver <jobId>`: a finished job's event sent again, now, to every active
 * endpoint. Its deliveries there start over (those waiting, settled or failed), and an active
 * endpoint with none (added since the job finished) gets one, under the event's own webhook-id so a
 * receiver that has it already can tell. One IMMEDIATE transaction, so the counts it reports are
 * what it did.
 */
import { randomBytes } from 'node:crypto';
import type { JobEventBuilder, JobStatus, Redeliveries, Redelivery, Sync } from '../contract.js';
import { finishedJob, type FinishedJobRow } from '../job-events.js';
import type { Db } from './open-db.js';

const active = 'SELECT id FROM webhook_endpoints WHERE disabled_at IS NULL';

/** Redeliveries on a data dir. */
export function redeliveries(db: Db, eventOf: JobEventBuilder) {
  const job = db.prepare<[string], FinishedJobRow>(
    'SELECT id, identifier, base_url, status, file_id, pages, bytes, error, error_code FROM jobs WHERE id = ?',
  );
  const firstDelivery = db.prepare<[string], { event_id: string; body: string }>(
    'SELECT event_id, body FROM webhook_deliveries WHERE job_id = ? ORDER BY id LIMIT 1',
  );
  // Held ones stay held (their endpoint is disabled); one in flight (claimed_until ahead) is left alone.
  const again = db.prepare<{ job: string; now: number }>(
    `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = @now, last_error = NULL
     WHERE job_id = @job AND status != 'held' AND (claimed_until IS NULL OR claimed_until <= @now) AND endpoint_id IN (${active})`,
  );
  const create = db.prepare<{ event: string; job: string; body: string; now: number }>(
    `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
     SELECT @event, @job, e.id, @body, 'pending', @now, @now FROM webhook_endpoints e
     WHERE e.disabled_at IS NULL AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.job_id = @job AND d.endpoint_id = e.id)
     ORDER BY e.created_at, e.rowid`,
  );
  const inFlight = db.prepare<[string, number], { count: number }>(
    'SELECT COUNT(*) AS count FROM webhook_deliveries WHERE job_id = ? AND claimed_until > ?',
  );
  const activeCount = db.prepare<[], { count: number }>(`SELECT COUNT(*) AS count FROM (${active})`);
  const held = db.prepare<[string], { endpoint_id: string }>(
    "SELECT endpoint_id FROM webhook_deliveries WHERE job_id = ? AND status = 'held' ORDER BY id",
  );

  const redeliver = db.transaction((jobId: string, now: number): Redelivery => {
    const row = job.get(jobId);
    const first = firstDelivery.get(jobId);
    // A job swept after its retention may still have deliveries waiting; those can go again.
    if (!row && !first) return { outcome: 'no-such-job' };
    if (row && row.status !== 'succeeded' && row.status !== 'failed')
      return { outcome: 'unfinished', status: row.status as JobStatus };
    const reset = again.run({ job: jobId, now }).changes;
    const event = first ?? {
      event_id: `evt_${randomBytes(12).toString('base64url')}`,
      body: JSON.stringify(eventOf(finishedJob(row!))),
    };
    const created = create.run({ event: event.event_id, job: jobId, body: event.body, now }).changes;
    return {
      outcome: 'done',
      queued: reset + created,
      created,
      inFlight: inFlight.get(jobId, now)!.count,
      heldFor: held.all(jobId).map((h) => h.endpoint_id),
      active: activeCount.get()!.count,
    };
  });

  return {
    redeliver: (jobId: string, now: number): Redelivery => redeliver.immediate(jobId, now),
  } satisfies Sync<Redeliveries>;
}
