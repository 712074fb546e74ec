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

/** Delays before the 2nd, 3rd, ... attempt; after the last the delivery is marked failed. */
export const retrySchedule = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];

/** How long a claimed attempt is kept from other senders (longer than the request timeout). */
const claimMs = 60_000;

/** The deliveries table of a data dir. */
export function deliveries(db: Db) {
  const insert = db.prepare('INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const due = db.prepare<[number, number], DeliveryRow>(
    "SELECT id, event_id, job_id, endpoint_id, body, attempts FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?",
  );
  const hold = db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE id = ?');
  const delivered = db.prepare("UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL, delivered_at = ? WHERE id = ?");
  const retry = db.prepare(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?,
       status = CASE WHEN attempts + 1 > ? THEN 'failed' ELSE 'pending' END, next_attempt_at = ? WHERE id = ?`,
  );
  const giveUp = db.prepare("UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = ?, last_error = ? WHERE id = ?");

  const claim = db.transaction((now: number, limit: number): Delivery[] => {
    const rows = due.all(now, limit);
    for (const row of rows) hold.run(now + claimMs, row.id);
    return rows.map((row) => ({ id: row.id, eventId: row.event_id, jobId: row.job_id, endpointId: row.endpoint_id, body: row.body, attempts: row.attempts }));
  });

  return {
    /** One pending delivery of `body` per endpoint, due now. */
    add(eventId: string, jobId: string, endpointIds: string[], body: string, now: number): void {
      for (const endpointId of endpointIds) insert.run(eventId, jobId, endpointId, body, 'pending', now, now);
    },
    /** Take up to `limit` due deliveries for sending. */
    claim: (now: number, limit: number): Delivery[] => claim.immediate(now, limit),
    /** The receiver answered 2xx. */
    succeeded(id: number, status: number, now: number): void {
      delivered.run(status, now, id);
    },
    /** The attempt failed: schedule the next, or mark the delivery failed after the last. */
    failed(delivery: Delivery, status: number | null, error: string, now: number): void {
      const delay = retrySchedule[delivery.attempts] ?? 0;
      retry.run(status, error, retrySchedule.length, now + delay, delivery.id);
    },
    /** Stop for good (the endpoint is gone or answered 410). */
    abandon(id: number, status: number | null, error: string): void {
      giveUp.run(status, error, id);
    },
  };
}

export type Deliveries = ReturnType<typeof deliveries>;
