/**
 * Fixed one-minute rate-limit windows in SQLite, so every server process on one data dir shares
 * the count and a restart does not hand out a fresh allowance.
 */
import type { RateWindows, Sync, WindowCount } from '../contract.js';
import type { Db } from './open-db.js';
import { windowMs, windowStart } from '../rate-window.js';

/** Counting hits per caller and window. */
export function rateWindows(db: Db) {
  const hit = db.prepare<[string, number], { count: number }>(
    `INSERT INTO rate_windows (key, window_start, count) VALUES (?, ?, 1)
     ON CONFLICT (key, window_start) DO UPDATE SET count = count + 1
     RETURNING count`,
  );
  const read = db.prepare<[string, number], { count: number }>(
    'SELECT count FROM rate_windows WHERE key = ? AND window_start = ?',
  );
  const prune = db.prepare<[number]>('DELETE FROM rate_windows WHERE window_start < ?');
  return {
    hit(key: string, now: number): WindowCount {
      const start = windowStart(now);
      const { count } = hit.get(key, start)!;
      return { count, resetAt: start + windowMs };
    },
    peek(key: string, now: number): WindowCount {
      const start = windowStart(now);
      return { count: read.get(key, start)?.count ?? 0, resetAt: start + windowMs };
    },
    prune(now: number): void {
      prune.run(windowStart(now));
    },
  } satisfies Sync<RateWindows>;
}
