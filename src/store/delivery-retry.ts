/**
 * When a failed webhook attempt goes again, the same in both stores: the schedule's delay, give or
 * take 10% so that retries to one receiver spread out, or the receiver's own Retry-After when it
 * asks for longer (up to the schedule's longest step).
 */

/** Delays before the 2nd, 3rd, ... attempt (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); after the last the delivery has failed. */
export const retrySchedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
/** A receiver's Retry-After is honoured up to the schedule's longest step, so a bogus one cannot park a delivery for years. */
export const maxRetryAfterMs = 36_000_000;

/** The delay before the next attempt of a delivery that has had `attempts` before this failed one, ms. */
export function retryDelay(attempts: number, retryAfterMs = 0): number {
  const scheduled = retrySchedule[attempts] ?? 0;
  return Math.max(Math.min(retryAfterMs, maxRetryAfterMs), Math.round(scheduled * (0.9 + Math.random() * 0.2)));
}
