/**
 * What PostgreSQL's own view says the shared store waited on: pdfrender's advisory locks (sql.ts
 * `locks`), sampled from pg_locks every few ms during a run. A lock held nearly all the time, with
 * sessions queued behind it, is the store's ceiling, whatever the number of instances.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';

const everyMs = 10;

/**
 * Start sampling the database at `url`. stop() resolves to { [lock name]: { held, waiting } }: the
 * share of samples in which the lock was held, and the mean number of sessions waiting for it.
 */
export async function sampleLocks(root, url) {
  const sql = await import(pathToFileURL(join(root, 'dist/store/postgres/sql.js')).href);
  // The enqueue and delivery-claim locks are taken inside database functions, so they are not among `locks`.
  const locks = {
    ...sql.locks,
    enqueue: { key: sql.enqueueLockKey },
    deliveryClaim: { key: sql.deliveryClaimLockKey },
  };
  const names = new Map(Object.entries(locks).map(([name, lock]) => [String(lock.key), name]));
  const client = new pg.Client({ connectionString: url, application_name: 'pdfrender-bench' });
  await client.connect();
  const totals = Object.fromEntries(Object.keys(locks).map((name) => [name, { held: 0, waiting: 0 }]));
  let samples = 0;
  let stopped = false;
  const sampling = (async () => {
    while (!stopped) {
      // A bigint advisory key is split into classid (high 32 bits) and objid (low 32 bits).
      const { rows } = await client.query(
        "SELECT ((classid::bigint << 32) | objid::bigint)::text AS key, granted, count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 GROUP BY 1, 2",
      );
      samples += 1;
      for (const { key, granted, n } of rows) {
        const name = names.get(key);
        if (!name) continue;
        if (granted) totals[name].held += 1;
        else totals[name].waiting += n;
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await sampling;
      await client.end();
      return Object.fromEntries(
        Object.entries(totals).map(([name, t]) => [
          name,
          { held: t.held / Math.max(samples, 1), waiting: t.waiting / Math.max(samples, 1) },
        ]),
      );
    },
  };
}
