/**
 * A warning said at most once per address per minute: a client refused again and again (a cap, a
 * cut upload) would otherwise write a line per connection, and an attacker would fill the log.
 */
import type { EventLog } from '../../event-log.js';

const intervalMs = 60_000;

/** A function that logs `message` as a warning unless it did so for `address` in the last minute. */
export function noticePerAddress(
  events: EventLog,
  now = () => performance.now(),
): (address: string, message: string) => void {
  const saidAt = new Map<string, number>();
  let prunedAt = now();
  return (address, message) => {
    const time = now();
    // Once a minute, addresses last said over a minute ago are forgotten: the map holds one minute's.
    if (time - prunedAt >= intervalMs) {
      for (const [known, at] of saidAt) if (time - at >= intervalMs) saidAt.delete(known);
      prunedAt = time;
    }
    const last = saidAt.get(address);
    if (last !== undefined && time - last < intervalMs) return;
    saidAt.set(address, time);
    events({ level: 'warn', message: `${message} (said at most once a minute per address)` });
  };
}
