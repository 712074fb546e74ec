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
import { sqliteDialect } from '../statements/dialect.js';
import { redeliverStatements } from '../statements/redeliver.js';
import type { Db } from './open-db.js';
import { ownerOfCaller } from '../owners.js';

const statements = redeliverStatements(sqliteDialect);

/** Redeliveries on a data dir. */
export function redeliveries(db: Db, eventOf: JobEventBuilder) {
  const job = db.prepare<{ jobId: string }, FinishedJobRow>(statements.job);
  const firstDelivery = db.prepare<{ jobId: string }, { event_id: string; body: string }>(statements.firstDelivery);
  const again = db.prepare<{ jobId: string; now: number; owner: string | null }>(statements.again);
  const create = db.prepare<{ eventId: string; jobId: string; body: string; now: number; owner: string }>(
    statements.create,
  );
  const counts = db.prepare<{ jobId: string; now: number; owner: string | null }, { inFlight: number; active: number }>(
    statements.counts,
  );
  const held = db.prepare<{ jobId: string }, { endpoint_id: string }>(statements.held);

  const redeliver = db.transaction((jobId: string, now: number): Redelivery => {
    const row = job.get({ jobId });
    const first = firstDelivery.get({ jobId });
    // A job swept after its retention may still have deliveries waiting; those can go again.
    if (!row && !first) return { outcome: 'no-such-job' };
    if (row && row.status !== 'succeeded' && row.status !== 'failed')
      return { outcome: 'unfinished', status: row.status as JobStatus };
    // Whose the job is decides which endpoints get it (its owner's and the global ones); a swept job's
    // owner is not known, so its event goes again only where it went before.
    const owner = row ? ownerOfCaller(row.caller) : null;
    const reset = again.run({ jobId, now, owner }).changes;
    const event = first ?? {
      event_id: `evt_${randomBytes(12).toString('base64url')}`,
      body: JSON.stringify(eventOf(finishedJob(row!))),
    };
    const created =
      owner === null ? 0 : create.run({ eventId: event.event_id, jobId, body: event.body, now, owner }).changes;
    return {
      outcome: 'done',
      queued: reset + created,
      created,
      ...counts.get({ jobId, now, owner })!,
      heldFor: held.all({ jobId }).map((h) => h.endpoint_id),
    };
  });

  return {
    redeliver: (jobId: string, now: number): Redelivery => redeliver.immediate(jobId, now),
  } satisfies Sync<Redeliveries>;
}
