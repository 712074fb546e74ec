/**
 * Webhook deliveries, one row per event and endpoint, with a persisted retry schedule: a delivery
 * survives a restart, and two servers on one data dir never send the same attempt twice (an
 * attempt is claimed by moving its next_attempt_at and claimed_until forward in an IMMEDIATE
 * transaction). A delivery to a disabled endpoint is 'held': kept, never sent, until the endpoint
 * is enabled again (see webhook-endpoints.ts).
 */
import { randomBytes } from 'node:crypto';
import { retryDelay, retrySchedule } from '../delivery-retry.js';
import type { Deliveries, Delivery, DeliveryLogEntry, DeliveryStatus, Sync } from '../contract.js';
import type { Db } from './open-db.js';

interface DeliveryRow {
  id: number;
  event_id: string;
  job_id: string;
  endpoint_id: string;
  body: string;
  attempts: number;
}

interface DeliveryLogRow {
  id: number;
  event_id: string;
  job_id: string;
  endpoint_id: string;
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  next_attempt_at: number;
  delivered_at: number | null;
}

/** The deliveries table of a data dir. */
export function deliveries(db: Db) {
  // One row per endpoint, read in the same statement, so the event and the endpoint list agree; a
  // disabled endpoint's row is held, so the event is kept for it rather than never written.
  const insertEvent = db.prepare<[string, string, string, number, number]>(
    `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
     SELECT ?, ?, id, ?, CASE WHEN disabled_at IS NULL THEN 'pending' ELSE 'held' END, ?, ? FROM webhook_endpoints ORDER BY created_at, rowid`,
  );
  // Due deliveries in due order, at most `perEndpoint` minus those already in flight for each
  // endpoint: a receiver that never answers holds a few slots, not all of them.
  const due = db.prepare<{ now: number; limit: number; perEndpoint: number; busy: string }, DeliveryRow>(
    `SELECT due.id, due.event_id, due.job_id, due.endpoint_id, due.body, due.attempts FROM (
       SELECT id, event_id, job_id, endpoint_id, body, attempts, next_attempt_at,
              row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS rank
       FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= @now
     ) due LEFT JOIN json_each(@busy) busy ON busy.key = due.endpoint_id
     WHERE due.rank <= @perEndpoint - coalesce(busy.value, 0)
     ORDER BY due.next_attempt_at, due.id LIMIT @limit`,
  );
  const logColumns = `SELECT d.id, d.event_id, d.job_id, d.endpoint_id, e.url, d.status, d.attempts, d.last_status, d.last_error, d.created_at, d.next_attempt_at, d.delivered_at
     FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id`;
  const log = db.prepare<[number], DeliveryLogRow>(`${logColumns} ORDER BY d.id DESC LIMIT ?`);
  const failedLog = db.prepare<[number], DeliveryLogRow>(
    `${logColumns} WHERE d.status = 'failed' ORDER BY d.id DESC LIMIT ?`,
  );
  const hold = db.prepare<[number, number, number]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ?, claimed_until = ? WHERE id = ?',
  );
  const delivered = db.prepare(
    "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, delivered_at = ?, claimed_until = NULL WHERE id = ?",
  );
  const retry = db.prepare(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, claimed_until = NULL,
       status = CASE WHEN attempts + 1 > ? THEN 'failed' ELSE 'pending' END, next_attempt_at = ? WHERE id = ?`,
  );
  // A 410 counts as an attempt (attempted = 1, its status and error kept); an endpoint found disabled before sending does not.
  // Held only while its endpoint is still disabled: one enabled again meanwhile (between the sender's
  // look and this write) gets the delivery due now instead, or it would wait for the next enable.
  const keep = db.prepare<{ id: number; attempted: number; status: number | null; error: string | null; now: number }>(
    `UPDATE webhook_deliveries SET claimed_until = NULL, attempts = attempts + @attempted,
       last_status = coalesce(@status, last_status), last_error = coalesce(@error, last_error),
       status = CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.disabled_at IS NOT NULL) THEN 'held' ELSE 'pending' END,
       next_attempt_at = CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.disabled_at IS NOT NULL) THEN next_attempt_at ELSE @now END
     WHERE id = @id`,
  );
  // Only attempts still claimed (not settled since): a lease renewed after its outcome was written would hide the next attempt.
  const extend = db.prepare<[number, number, string]>(
    "UPDATE webhook_deliveries SET next_attempt_at = ?, claimed_until = ? WHERE id IN (SELECT value FROM json_each(?)) AND status = 'pending' AND claimed_until IS NOT NULL",
  );
  const giveUp = db.prepare(
    "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = ?, last_error = ?, claimed_until = NULL WHERE id = ?",
  );

  const claim = db.transaction(
    (
      now: number,
      limit: number,
      leaseMs: number,
      perEndpoint: number,
      inFlight: Record<string, number>,
    ): Delivery[] => {
      const rows = due.all({ now, limit, perEndpoint, busy: JSON.stringify(inFlight) });
      for (const row of rows) hold.run(now + leaseMs, now + leaseMs, row.id);
      return rows.map((row) => ({
        id: row.id,
        eventId: row.event_id,
        jobId: row.job_id,
        endpointId: row.endpoint_id,
        body: row.body,
        attempts: row.attempts,
      }));
    },
  );

  const toEntry = (row: DeliveryLogRow): DeliveryLogEntry => ({
    id: row.id,
    eventId: row.event_id,
    jobId: row.job_id,
    endpointId: row.endpoint_id,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    nextAttemptAt: row.status === 'pending' ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
  });

  return {
    // Called inside the transaction that settles the job (jobs.ts), so both happen or neither.
    queueEvent(jobId: string, event: unknown, now: number): number {
      return insertEvent.run(`evt_${randomBytes(12).toString('base64url')}`, jobId, JSON.stringify(event), now, now)
        .changes;
    },
    claim: (
      now: number,
      limit: number,
      leaseMs: number,
      perEndpoint: number = limit,
      inFlight: Record<string, number> = {},
    ): Delivery[] => claim.immediate(now, limit, leaseMs, perEndpoint, inFlight),
    renew(ids: number[], until: number): number {
      return extend.run(until, until, JSON.stringify(ids)).changes;
    },
    succeeded(id: number, status: number, now: number): void {
      delivered.run(status, now, id);
    },
    failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs = 0): void {
      retry.run(status, error, retrySchedule.length, now + retryDelay(delivery.attempts, retryAfterMs), delivery.id);
    },
    log(limit: number, failedOnly = false): DeliveryLogEntry[] {
      return (failedOnly ? failedLog : log).all(limit).map(toEntry);
    },
    hold(id: number, now: number, answered?: { status: number; error: string }): void {
      keep.run({
        id,
        attempted: answered ? 1 : 0,
        status: answered?.status ?? null,
        error: answered?.error ?? null,
        now,
      });
    },
    abandon(id: number, status: number | null, error: string): void {
      giveUp.run(status, error, id);
    },
  } satisfies Sync<Deliveries>;
}
