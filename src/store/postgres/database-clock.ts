/**
 * The database's clock, for instances on different machines: lease times, dedupe windows and rate
 * windows are compared across instances, so they must all count from one clock. Date.now() is
 * corrected by its offset to the database server's clock, measured halfway through a round trip
 * (the error is at most half the round trip) at start and again every minute; a failed
 * measurement keeps the last offset (a database that cannot be reached fails the work anyway).
 */
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { row } from './sql.js';

/** How often the offset is measured again: clocks drift by milliseconds a minute at worst. */
const remeasureMs = 60_000;

/** A Clock that follows the database's; `stop` ends the re-measuring (it never keeps the process alive). */
export interface DatabaseClock extends Clock {
  /** Milliseconds the database's clock is ahead of this machine's (negative: behind), as last measured. */
  offsetMs(): number;
  stop(): void;
}

/** One measurement: the database's time minus this machine's at the middle of the round trip. */
async function measureOffset(pool: pg.Pool): Promise<number> {
  const sent = Date.now();
  const answer = await row<{ ms: string }>(pool, 'SELECT (extract(epoch from clock_timestamp()) * 1000)::text AS ms');
  const received = Date.now();
  return Number(answer!.ms) - (sent + received) / 2;
}

/** Measure the offset to the database's clock (rejects when the database cannot be reached) and keep it measured. */
export async function databaseClock(pool: pg.Pool): Promise<DatabaseClock> {
  let offset = await measureOffset(pool);
  const timer = setInterval(() => {
    measureOffset(pool).then(
      (measured) => (offset = measured),
      () => undefined,
    );
  }, remeasureMs);
  timer.unref();
  return {
    now: () => Math.round(Date.now() + offset),
    offsetMs: () => offset,
    stop: () => clearInterval(timer),
  };
}
