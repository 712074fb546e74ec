/**
 * Fixed one-minute rate-limit windows in SQLite, so every server process on one data dir shares
 * the count and a restart does not hand out a fresh allowance.
 */
import type { RateWindows, Sync, WindowCount } from '../contract.js';
import { rateWindowStatements as statements } from '../statements/rate-windows.js';
import type { Db } from './open-db.js';
import { windowMs, windowStart } from '../rate-window.js';

/** Counting hits per caller and window. */
export function rateWindows(db: Db) {
  const hit = db.prepare<{ key: string; start: number }, { count: number }>(statements.hit);
  const read = db.prepare<{ key: string; start: number }, { count: number }>(statements.peek);
  const prune = db.prepare<{ start: number }>(statements.prune);
  return {
    hit(key: string, now: number): WindowCount {
      const start = windowStart(now);
      const { count } = hit.get({ key, start })!;
      return { count, resetAt: start + windowMs };
    },
    peek(key: string, now: number): WindowCount {
      const start = windowStart(now);
      return { count: read.get({ key, start })?.count ?? 0, resetAt: start + windowMs };
    },
    prune(now: number): void {
      prune.run({ start: windowStart(now) });
    },
  } satisfies Sync<RateWindows>;
}
