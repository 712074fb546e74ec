/**
 * How a shared storage (a PostgreSQL database, an S3 bucket) is looked at: each check is a round
 * trip that fails if the storage could not take writes now. There is no data dir to lose, and a
 * committed write is where every instance reads it, so confirm has nothing more to look at. Such
 * a storage comes back by itself.
 */
import { callerError } from '../../errors.js';
import { raceAbort } from '../../race.js';
import type { StorageFault, StorageLooks } from './storage-health.js';

/** A check of one storage: null while it answers, else why not. */
export type StorageCheck = () => Promise<StorageFault | null>;

/** The first fault `checks` find, in order, or null. */
export async function firstFault(checks: StorageCheck[]): Promise<StorageFault | null> {
  for (const check of checks) {
    const fault = await check();
    if (fault) return fault;
  }
  return null;
}

/** How long one look may take: a storage that does not answer by then is unavailable (a cut-off database would hold a query for minutes). */
const lookTimeoutMs = 5_000;

/**
 * A check from a round trip that rejects when `name` cannot take writes. A lock conflict
 * (DATABASE_BUSY) is the storage answering, busy: the writes that meet it are retried, so it is
 * not an outage.
 */
export function roundTripCheck(name: string, roundTrip: () => Promise<void>): StorageCheck {
  return () =>
    raceAbort(roundTrip(), AbortSignal.timeout(lookTimeoutMs)).then(
      () => null,
      (error: unknown): StorageFault | null =>
        (error as { code?: unknown }).code === 'DATABASE_BUSY'
          ? null
          : { code: 'STORAGE_UNAVAILABLE', reason: `${name} does not answer: ${describe(error)}` },
    );
}

// /readyz answers anyone: the code of what failed (ECONNREFUSED, 28P01), never a message that may
// name hosts, users or buckets.
function describe(error: unknown): string {
  if (error instanceof DOMException && error.name === 'TimeoutError')
    return `no answer within ${lookTimeoutMs / 1000} s`;
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as { code?: unknown }).code;
  return typeof code === 'string' ? `error ${code}` : callerError(error).message;
}

/** Looks for a shared storage made of what `checks` look at, described in the log as `where`. */
export function sharedStorageLooks(where: string, checks: StorageCheck[]): StorageLooks {
  return {
    where,
    recovery: 'until it answers again',
    shared: true,
    look: () => firstFault(checks),
    confirm: async () => null,
  };
}
