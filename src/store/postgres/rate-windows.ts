/**
 * Fixed one-minute rate-limit windows in PostgreSQL, with the SQLite semantics (sqlite/rate-windows.ts):
 * every instance counts into the same row, one atomic upsert per request, so N are allowed in a
 * window in total, not N per instance.
 */
import type pg from 'pg';
import { windowMs, windowStart } from '../rate-window.js';
import type { RateWindows } from '../contract.js';
import { rateWindowStatements as statements } from '../statements/rate-windows.js';
import { named } from './named.js';
import { query, row } from './sql.js';

/** Rate-limit windows in the database of `pool`. */
export function postgresRateWindows(pool: pg.Pool): RateWindows {
  return {
    async hit(key: string, now: number) {
      const start = windowStart(now);
      const counted = await row<{ count: number }>(pool, ...named(statements.hit, { key, start }));
      return { count: counted!.count, resetAt: start + windowMs };
    },
    async peek(key: string, now: number) {
      const start = windowStart(now);
      const counted = await row<{ count: number }>(pool, ...named(statements.peek, { key, start }));
      return { count: counted?.count ?? 0, resetAt: start + windowMs };
    },
    async prune(now: number) {
      await query(pool, ...named(statements.prune, { start: windowStart(now) }));
    },
  };
}
