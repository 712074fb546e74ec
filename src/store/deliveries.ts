/**
 * Webhook deliveries, one row per event and endpoint, with a persisted retry schedule: a delivery
 * survives a restart, and two servers on one data dir never send the same attempt twice (an
 * attempt is claimed by moving its next_attempt_at forward in an IMMEDIATE transaction).
 */
import type { Db } from './open-db.js';

export interface Delivery {
  id: number;
  eventId: string;
  jobId: string;
  endpointId: string;
  body: string;
  attempts: number;
}

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
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  next_attempt_at: number;
  delivered_at: number | null;
}

export interface DeliveryLogEntry {
  id: number;
  eventId: string;
  jobId: string;
  endpointId: string;
  /** The endpoint's URL, null once it was removed. */
  url: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

/** Delays before the 2nd, 3rd, ... attempt (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); after the last the delivery has failed. */
export const retrySchedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** The deliveries table of a data dir. */
export function deliveries(db: Db) {
  const insert = db.prepare('INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const due = db.prepare<[number, number], DeliveryRow>(
    "SELECT id, event_id, job_id, endpoint_id, body, attempts FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
  );
  const log = db.prepare<[number], DeliveryLogRow>(
    `SELECT d.id, d.event_id, d.job_id, d.endpoint_id, e.url, d.status, d.attempts, d.last_status, d.last_error, d.created_at, d.next_attempt_at, d.delivered_at
     FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id ORDER BY d.id DESC LIMIT ?`,
  );
  const again = db.prepare<[number, string]>(
    "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, last_error = NULL WHERE job_id = ?",
  );
  const hold = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?');
  const delivered = db.prepare("UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, delivered_at = ? WHERE id = ?");
  const retry = db.prepare(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
       status = CASE WHEN attempts + 1 > ? THEN 'failed' ELSE 'pending' END, next_attempt_at = ? WHERE id = ?`,
  );
  const giveUp = db.prepare("UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = ?, last_error = ? WHERE id = ?");

  const claim = db.transaction((now: number, limit: number, holdMs: number): Delivery[] => {
    const rows = due.all(now, limit);
    for (const row of rows) hold.run(now + holdMs, row.id);
    return rows.map((row) => ({ id: row.id, eventId: row.event_id, jobId: row.job_id, endpointId: row.endpoint_id, body: row.body, attempts: row.attempts }));
  });

  return {
    /** One pending delivery of `body` per endpoint, due now. */
    add(eventId: string, jobId: string, endpointIds: string[], body: string, now: number): void {
      for (const endpointId of endpointIds) insert.run(eventId, jobId, endpointId, body, 'pending', now, now);
    },
    /**
     * Take up to `limit` due deliveries for sending, kept from other senders for `holdMs` (longer
     * than one attempt can take); if this sender dies mid-attempt, the delivery is due again then.
     */
    claim: (now: number, limit: number, holdMs: number): Delivery[] => claim.immediate(now, limit, holdMs),
    /** The receiver answered 2xx. */
    succeeded(id: number, status: number, now: number): void {
      delivered.run(status, now, id);
    },
    /**
     * The attempt failed: schedule the next, or mark the delivery failed after the last. The delay is
     * the schedule's, give or take 10% so that retries to one receiver spread out, or the receiver's
     * own Retry-After when it asks for longer.
     */
    failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs = 0): void {
      const scheduled = retrySchedule[delivery.attempts] ?? 0;
      const delay = Math.max(retryAfterMs, Math.round(scheduled * (0.9 + Math.random() * 0.2)));
      retry.run(status, error, retrySchedule.length, now + delay, delivery.id);
    },
    /** The newest deliveries first, for `pdfrender webhooks deliveries`. */
    log(limit: number): DeliveryLogEntry[] {
      return log.all(limit).map((row) => ({
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
      }));
    },
    /** Send every delivery of a job again, now; returns how many. */
    redeliver(jobId: string, now: number): number {
      return again.run(now, jobId).changes;
    },
    /** Stop for good (the endpoint is gone or answered 410). */
    abandon(id: number, status: number | null, error: string): void {
      giveUp.run(status, error, id);
    },
  };
}

export type Deliveries = ReturnType<typeof deliveries>;
