/**
 * When a failed webhook attempt goes again, the same in both stores: the schedule's delay, give or
 * take 10% so that retries to one receiver spread out, or the receiver's own Retry-After when it
 * asks for longer (up to the schedule's longest step).
 */
import { maxRetryAfterMs, retrySchedule } from './deliveries.js';

/** The delay before the next attempt of a delivery that has had `attempts` before this failed one, ms. */
export function retryDelay(attempts: number, retryAfterMs = 0): number {
  const scheduled = retrySchedule[attempts] ?? 0;
  return Math.max(Math.min(retryAfterMs, maxRetryAfterMs), Math.round(scheduled * (0.9 + Math.random() * 0.2)));
}
