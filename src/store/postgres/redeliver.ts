/**
 * `pdfrender webhooks redeliver <jobId>` on PostgreSQL, with the SQLite semantics (sqlite/redeliver.ts):
 * one transaction holding the webhooks lock exclusively, so the counts it reports are what it did
 * and two redeliveries of one job at once do not both create deliveries for a new endpoint.
 */
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { finishedJob, type FinishedJobRow } from '../job-events.js';
import type { JobEventBuilder, JobStatus, Redeliveries, Redelivery } from '../contract.js';
import { postgresDialect } from '../statements/dialect.js';
import { redeliverStatements } from '../statements/redeliver.js';
import { named } from './named.js';
import { ownerOfCaller } from '../owners.js';
import { changes, locks, row, rows, transaction } from './sql.js';

const statements = redeliverStatements(postgresDialect);

/** Redeliveries in the database of `pool`. */
export function postgresRedeliveries(pool: pg.Pool, eventOf: JobEventBuilder): Redeliveries {
  return {
    redeliver: (jobId: string, now: number) =>
      transaction(
        pool,
        async (tx): Promise<Redelivery> => {
          const job = await row<FinishedJobRow>(tx, ...named(statements.job, { jobId }));
          const first = await row<{ event_id: string; body: string }>(
            tx,
            ...named(statements.firstDelivery, { jobId }),
          );
          // A job swept after its retention may still have deliveries waiting; those can go again.
          if (!job && !first) return { outcome: 'no-such-job' };
          if (job && job.status !== 'succeeded' && job.status !== 'failed')
            return { outcome: 'unfinished', status: job.status as JobStatus };
          // Whose the job is decides which endpoints get it (its owner's and the global ones); a swept
          // job's owner is not known, so its event goes again only where it went before.
          const owner = job ? ownerOfCaller(job.caller) : null;
          const reset = await changes(tx, ...named(statements.again, { jobId, now, owner }));
          const event = first ?? {
            event_id: `evt_${randomBytes(12).toString('base64url')}`,
            body: JSON.stringify(eventOf(finishedJob(job!))),
          };
          const created =
            owner === null
              ? 0
              : await changes(
                  tx,
                  ...named(statements.create, { eventId: event.event_id, jobId, body: event.body, now, owner }),
                );
          const counts = (await row<{ inFlight: number; active: number }>(
            tx,
            ...named(statements.counts, { jobId, now, owner }),
          ))!;
          const held = await rows<{ endpoint_id: string }>(tx, ...named(statements.held, { jobId }));
          return {
            outcome: 'done',
            queued: reset + created,
            created,
            ...counts,
            heldFor: held.map((h) => h.endpoint_id),
          };
        },
        locks.webhookChange,
      ),
  };
}
