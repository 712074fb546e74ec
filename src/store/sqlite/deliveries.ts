/**
 * Webhook deliveries, one row per event and endpoint, with a persisted retry schedule: a delivery
 * survives a restart, and two servers on one data dir never send the same attempt twice (an
 * attempt is claimed by moving its next_attempt_at and claimed_until forward in an IMMEDIATE
 * transaction). A delivery to a disabled endpoint is 'held': kept, never sent, until the endpoint
 * is enabled again (see webhook-endpoints.ts).
 */
import { randomBytes } from 'node:crypto';
import type { Deliveries, Delivery, DeliveryLogEntry, EndpointDeliveries, Sync } from '../contract.js';
import { sqliteDialect } from '../statements/dialect.js';
import { deliveryColumns, deliveryStatements, failedParams, holdParams } from '../statements/deliveries.js';
import type { Db } from './open-db.js';
import { noOwner } from '../owners.js';

const statements = deliveryStatements(sqliteDialect);

/** The deliveries table of a data dir. */
export function deliveries(db: Db) {
  const insertEvent = db.prepare(statements.queueEvent);
  // Due deliveries in due order, at most `perEndpoint` minus those already in flight for each
  // endpoint (the sender's counts): a receiver that never answers holds a few slots, not all of them.
  // The job's trace context is read for the deliveries picked only (a swept job's: none).
  const due = db.prepare<{ now: number; limit: number; perEndpoint: number; busy: string }, Delivery>(
    `SELECT ${deliveryColumns('due', 'j.trace_context')} FROM (
       SELECT id, event_id, job_id, endpoint_id, body, attempts, next_attempt_at, created_at,
              row_number() OVER (PARTITION BY endpoint_id ORDER BY next_attempt_at, id) AS rank
       FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= @now
     ) due LEFT JOIN json_each(@busy) busy ON busy.key = due.endpoint_id LEFT JOIN jobs j ON j.id = due.job_id
     WHERE due.rank <= @perEndpoint - coalesce(busy.value, 0)
     ORDER BY due.next_attempt_at, due.id LIMIT @limit`,
  );
  const take = db.prepare<[number, number, number]>(
    'UPDATE webhook_deliveries SET next_attempt_at = ?, claimed_until = ? WHERE id = ?',
  );
  const log = db.prepare<{ limit: number }, DeliveryLogEntry>(statements.log);
  const failedLog = db.prepare<{ limit: number }, DeliveryLogEntry>(statements.failedLog);
  const renew = db.prepare(statements.renew);
  const succeeded = db.prepare(statements.succeeded);
  const failed = db.prepare(statements.failed);
  const hold = db.prepare(statements.hold);
  const abandon = db.prepare(statements.abandon);
  const overview = db.prepare<[], EndpointDeliveries>(statements.overview);

  const claim = db.transaction(
    (
      now: number,
      limit: number,
      leaseMs: number,
      perEndpoint: number,
      inFlight: Record<string, number>,
    ): Delivery[] => {
      const rows = due.all({ now, limit, perEndpoint, busy: JSON.stringify(inFlight) });
      for (const row of rows) take.run(now + leaseMs, now + leaseMs, row.id);
      return rows;
    },
  );

  return {
    // Called inside the transaction that settles the job (jobs.ts), so both happen or neither.
    queueEvent(jobId: string, event: unknown, now: number, owner = noOwner): number {
      const eventId = `evt_${randomBytes(12).toString('base64url')}`;
      return insertEvent.run({ eventId, jobId, body: JSON.stringify(event), now, owner }).changes;
    },
    claim: (
      now: number,
      limit: number,
      leaseMs: number,
      perEndpoint: number = limit,
      inFlight: Record<string, number> = {},
    ): Delivery[] => claim.immediate(now, limit, leaseMs, perEndpoint, inFlight),
    renew: (ids: number[], until: number): number => renew.run({ ids: sqliteDialect.list(ids), until }).changes,
    succeeded(id: number, status: number, now: number): void {
      succeeded.run({ id, status, now });
    },
    failed(delivery: Delivery, status: number | null, error: string, now: number, retryAfterMs = 0): void {
      failed.run(failedParams(delivery, status, error, now, retryAfterMs));
    },
    log: (limit: number, failedOnly = false): DeliveryLogEntry[] => (failedOnly ? failedLog : log).all({ limit }),
    hold(id: number, now: number, answered?: { status: number; error: string }): void {
      hold.run(holdParams(id, now, answered));
    },
    abandon(id: number, status: number | null, error: string): void {
      abandon.run({ id, status, error });
    },
    overview: (): EndpointDeliveries[] => overview.all(),
  } satisfies Sync<Deliveries>;
}
