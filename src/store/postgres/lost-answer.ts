/**
 * What became of an enqueue whose answer was lost: the statement was sent, and then the connection
 * broke or went silent (a reset, a restart, a partition holding traffic), so the job may have been
 * committed or not. A client-side timeout does not cancel the statement on the server. The job's id
 * was chosen before the insert, so the database can tell: looked at under the enqueue lock (shared:
 * an enqueue that holds it has committed or rolled back before the look reads), the job is there,
 * or it is not and never will be once the session that sent it has ended or its deadline has passed
 * (pdfrender_enqueue_v2, which v3 calls, refuses to queue after it). A session still idle, its statement perhaps
 * still on the way, is ended, so that it cannot arrive later. When the database does not answer
 * within the budget, the outcome is unknown, and the caller is told so.
 */
import type pg from 'pg';
import { raceAbort } from '../../race.js';
import { enqueueLockKey, row, query, transaction, type Session } from './sql.js';

/** How long an enqueue keeps looking for its job before it answers that the outcome is unknown. */
const lookForMs = 5_000;
/** Between two looks: the session it ended takes a moment to go. */
const pauseMs = 200;

/** The enqueue whose answer was lost. */
export interface LostEnqueue {
  /** The id the job would have. */
  jobId: string;
  /** The server session that sent it, when its pool learnt it (postgresPool); without, only the deadline settles it. */
  session: Session | undefined;
  /** The deadline it was sent with, ms by the database's clock (null: none). */
  deadline: number | null;
}

/** Whether the job of `lost` was queued; 'unknown' when the database did not say within the budget. */
export async function afterLostAnswer(pool: pg.Pool, lost: LostEnqueue): Promise<'queued' | 'not queued' | 'unknown'> {
  const until = performance.now() + lookForMs;
  while (performance.now() < until) {
    const seen = await raceAbort(
      look(pool, lost),
      AbortSignal.timeout(Math.max(1, Math.round(until - performance.now()))),
    ).catch(() => undefined);
    if (seen?.queued) return 'queued';
    if (seen && (seen.late || (seen.session === null && lost.session !== undefined))) return 'not queued';
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return 'unknown';
}

interface Seen {
  queued: boolean;
  /** The deadline has passed by the database's clock (null: it had none). */
  late: boolean | null;
  /** The state of the sending session, null once it has ended. */
  session: string | null;
}

/** One look under the enqueue lock; ends the sending session when it sits idle (its statement done, or never arrived). */
function look(pool: pg.Pool, lost: LostEnqueue): Promise<Seen> {
  return transaction(
    pool,
    async (tx) => {
      // The very session (its process id and start: an id is reused once its process ended).
      const seen = (await row<Seen>(
        tx,
        `SELECT EXISTS (SELECT 1 FROM jobs WHERE id = $1) AS queued, extract(epoch from clock_timestamp()) * 1000 > $2 AS late,
           (SELECT state FROM pg_stat_activity WHERE pid = $3 AND backend_start = $4::timestamptz) AS session`,
        [lost.jobId, lost.deadline, lost.session?.pid ?? null, lost.session?.startedAt ?? null],
      ))!;
      if (!seen.queued && !seen.late && seen.session === 'idle') {
        await query(
          tx,
          "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid = $1 AND backend_start = $2::timestamptz AND state = 'idle'",
          [lost.session!.pid, lost.session!.startedAt],
        );
      }
      return seen;
    },
    { key: enqueueLockKey, shared: true },
  );
}
