/**
 * Webhook deliveries in PostgreSQL, with the SQLite outbox's semantics (sqlite/deliveries.ts). A claim
 * moves each delivery's next attempt and claimed_until forward; claims take one advisory lock
 * (inside one database function, never across a round trip), so each sees what the last left: the attempts in flight per endpoint are counted from the table
 * (claimed_until ahead), every instance's, so the per-endpoint cap holds across instances; and
 * each UPDATE re-checks that the row is still due, so an instance never sends an attempt another
 * one took.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { retryDelay, retrySchedule } from '../delivery-retry.js';
import type { Deliveries, Delivery, DeliveryLogEntry } from '../contract.js';
import { changes, locks, query, rows, transaction, type Sql } from './sql.js';

/**
 * Queue `event` for every endpoint in `tx` (held for a disabled one); returns how many deliveries.
 * The caller holds the webhooks lock (shared), so no endpoint changes between this and its commit.
 */
export async function queueEvent(tx: Sql, jobId: string, event: unknown, now: number): Promise<number> {
  return changes(
    tx,
    `INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, next_attempt_at, created_at)
     SELECT $1, $2, id, $3, CASE WHEN disabled_at IS NULL THEN 'pending' ELSE 'held' END, $4, $4 FROM webhook_endpoints ORDER BY created_at, seq`,
    [`evt_${randomBytes(12).toString('base64url')}`, jobId, JSON.stringify(event), now],
  );
}

// The columns of a log entry, named as its fields.
const logColumns = `SELECT d.id, d.event_id AS "eventId", d.job_id AS "jobId", d.endpoint_id AS "endpointId", e.url, d.status, d.attempts,
    d.last_status AS "lastStatus", d.last_error AS "lastError", d.created_at AS "createdAt",
    CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS "nextAttemptAt", d.delivered_at AS "deliveredAt"
  FROM webhook_deliveries d LEFT JOIN webhook_endpoints e ON e.id = d.endpoint_id`;

/** The deliveries table in the database of `pool`. */
export function postgresDeliveries(pool: pg.Pool): Deliveries {
  return {
    queueEvent: (jobId: string, event: unknown, now: number) =>
      transaction(pool, (tx) => queueEvent(tx, jobId, event, now), locks.webhookWrite),

    claim: (now: number, limit: number, leaseMs: number, perEndpoint: number = limit) =>
      // One round trip: the claim lock is taken and let go inside the database (schema.ts).
      rows<Delivery>(
        pool,
        'SELECT id, event_id AS "eventId", job_id AS "jobId", endpoint_id AS "endpointId", body, attempts FROM pdfrender_claim_deliveries($1, $2, $3, $4)',
        [now, limit, perEndpoint, now + leaseMs],
      ),

    renew: (ids: number[], until: number) =>
      changes(
        pool,
        "UPDATE webhook_deliveries SET next_attempt_at = $1, claimed_until = $1 WHERE id = ANY($2::bigint[]) AND status = 'pending' AND claimed_until IS NOT NULL",
        [until, ids],
      ),

    async succeeded(id: number, status: number, now: number) {
      await query(
        pool,
        "UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = $1, last_error = NULL, delivered_at = $2, claimed_until = NULL WHERE id = $3",
        [status, now, id],
      );
    },

    async failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs = 0) {
      await query(
        pool,
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = $1, last_error = $2, claimed_until = NULL,
           status = CASE WHEN attempts + 1 > $3 THEN 'failed' ELSE 'pending' END, next_attempt_at = $4 WHERE id = $5`,
        [status, error, retrySchedule.length, now + retryDelay(delivery.attempts, retryAfterMs), delivery.id],
      );
    },

    log: async (limit: number, failedOnly = false) =>
      rows<DeliveryLogEntry>(
        pool,
        `${logColumns} ${failedOnly ? "WHERE d.status = 'failed'" : ''} ORDER BY d.id DESC LIMIT $1`,
        [limit],
      ),

    async hold(id: number, now: number, answered?: { status: number; error: string }) {
      // Held only while its endpoint is still disabled: one enabled again meanwhile gets the delivery due now.
      // Under the shared webhook lock, so an enable in progress commits first and this sees it (its release would miss a row held after it).
      await transaction(
        pool,
        (tx) =>
          query(
            tx,
            `UPDATE webhook_deliveries SET claimed_until = NULL, attempts = attempts + $2,
           last_status = coalesce($3, last_status), last_error = coalesce($4, last_error),
           status = CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.disabled_at IS NOT NULL) THEN 'held' ELSE 'pending' END,
           next_attempt_at = CASE WHEN EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = endpoint_id AND e.disabled_at IS NOT NULL) THEN next_attempt_at ELSE $5 END
         WHERE id = $1`,
            [id, answered ? 1 : 0, answered?.status ?? null, answered?.error ?? null, now],
          ),
        locks.webhookWrite,
      );
    },

    async abandon(id: number, status: number | null, error: string) {
      await query(
        pool,
        "UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = $1, last_error = $2, claimed_until = NULL WHERE id = $3",
        [status, error, id],
      );
    },
  };
}
