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
import type { Deliveries, DeliveriesWaiting, Delivery, DeliveryLogEntry, EndpointDeliveries } from '../contract.js';
import { postgresDialect } from '../statements/dialect.js';
import { deliveryColumns, deliveryStatements, failedParams, holdParams } from '../statements/deliveries.js';
import { named } from './named.js';
import { noOwner } from '../owners.js';
import { changes, locks, query, rows, transaction, type Sql } from './sql.js';

const statements = deliveryStatements(postgresDialect);

/**
 * Queue `event` for every endpoint in `tx` (held for a disabled one); returns how many deliveries.
 * The caller holds the webhooks lock (shared), so no endpoint changes between this and its commit.
 */
export async function queueEvent(tx: Sql, jobId: string, event: unknown, now: number, owner: string): Promise<number> {
  const eventId = `evt_${randomBytes(12).toString('base64url')}`;
  return changes(tx, ...named(statements.queueEvent, { eventId, jobId, body: JSON.stringify(event), now, owner }));
}

/** The deliveries table in the database of `pool`. */
export function postgresDeliveries(pool: pg.Pool): Deliveries {
  return {
    queueEvent: (jobId: string, event: unknown, now: number, owner = noOwner) =>
      transaction(pool, (tx) => queueEvent(tx, jobId, event, now, owner), locks.webhookWrite),

    claim: (now: number, limit: number, leaseMs: number, perEndpoint: number = limit) =>
      // One round trip: the claim lock is taken and let go inside the database (schema.ts).
      rows<Delivery>(
        pool,
        `SELECT ${deliveryColumns('claimed')} FROM pdfrender_claim_deliveries_v2($1, $2, $3, $4) claimed`,
        [now, limit, perEndpoint, now + leaseMs],
      ),

    renew: (ids: number[], until: number) =>
      changes(pool, ...named(statements.renew, { ids: postgresDialect.list(ids), until })),

    async succeeded(id: number, status: number, now: number) {
      await query(pool, ...named(statements.succeeded, { id, status, now }));
    },

    async failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs = 0) {
      await query(pool, ...named(statements.failed, failedParams(delivery, status, error, now, retryAfterMs)));
    },

    log: async (limit: number, failedOnly = false) =>
      rows<DeliveryLogEntry>(pool, ...named(failedOnly ? statements.failedLog : statements.log, { limit })),

    async hold(id: number, now: number, answered?: { status: number; error: string }) {
      // Under the shared webhook lock, so an enable in progress commits first and this sees it (its
      // release would miss a row held after it).
      await transaction(
        pool,
        (tx) => query(tx, ...named(statements.hold, holdParams(id, now, answered))),
        locks.webhookWrite,
      );
    },

    async abandon(id: number, status: number | null, error: string) {
      await query(pool, ...named(statements.abandon, { id, status, error }));
    },

    async waiting(): Promise<DeliveriesWaiting> {
      // One row always (an aggregate without GROUP BY); bigints are numbers here (sql.ts).
      const [counts] = await rows<DeliveriesWaiting>(pool, statements.waiting);
      return counts!;
    },

    overview: async () => rows<EndpointDeliveries>(pool, statements.overview),
  };
}
