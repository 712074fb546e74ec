/**
 * The database's clock, for instances on different machines: lease times, dedupe windows and rate
 * windows are compared across instances, so they must all count from one clock. It is this
 * machine's monotonic clock (performance.now) plus its offset to the database server's clock,
 * measured halfway through a round trip (the error is at most half the round trip) at start and
 * again every minute. Monotonic, not Date.now(): a step of this machine's wall clock (NTP
 * correcting it, an operator setting it) would otherwise move every time this instance compares,
 * and a step of +30 s made it see the other instances' leases as run out and take their jobs in
 * flight. A re-measurement only corrects the drift between the two clocks. The monotonic clock
 * stands still while the machine sleeps (a suspended laptop, a paused VM), so when it and the wall
 * clock part by more than a second the offset is measured again at once. A failed measurement keeps
 * the last offset (a database that cannot be reached fails the work anyway).
 */
import type pg from 'pg';
import type { Clock } from '../../clock.js';
import { row } from './sql.js';

/** How often the offset is measured again: clocks drift by milliseconds a minute at worst. */
const remeasureMs = 60_000;
/** How often the two local clocks are compared, and by how much they may part before a measurement. */
const compareEveryMs = 1_000;
const partedMs = 1_000;

/** A Clock that follows the database's; `stop` ends the re-measuring (it never keeps the process alive). */
export interface DatabaseClock extends Clock {
  /** Milliseconds the database's clock is ahead of this machine's wall clock (negative: behind), now. */
  offsetMs(): number;
  stop(): void;
}

/** One measurement: the database's time minus this machine's monotonic time at the middle of the round trip. */
async function measureOffset(pool: pg.Pool): Promise<number> {
  const sent = performance.now();
  const answer = await row<{ ms: string }>(pool, 'SELECT (extract(epoch from clock_timestamp()) * 1000)::text AS ms');
  const received = performance.now();
  return Number(answer!.ms) - (sent + received) / 2;
}

/** Measure the offset to the database's clock (rejects when the database cannot be reached) and keep it measured. */
export async function databaseClock(pool: pg.Pool): Promise<DatabaseClock> {
  let offset = await measureOffset(pool);
  let measuring = false;
  const measure = () => {
    if (measuring) return;
    measuring = true;
    measureOffset(pool)
      .then(
        (measured) => (offset = measured),
        () => undefined,
      )
      .finally(() => (measuring = false));
  };
  let measuredAt = performance.now();
  let wallAhead = Date.now() - performance.now();
  const timer = setInterval(() => {
    const ahead = Date.now() - performance.now();
    if (Math.abs(ahead - wallAhead) > partedMs || performance.now() - measuredAt >= remeasureMs) {
      measuredAt = performance.now();
      measure();
    }
    wallAhead = ahead;
  }, compareEveryMs);
  timer.unref();
  const now = () => performance.now() + offset;
  return {
    now: () => Math.round(now()),
    offsetMs: () => now() - Date.now(),
    stop: () => clearInterval(timer),
  };
}
