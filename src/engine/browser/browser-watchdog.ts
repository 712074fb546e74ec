/**
 * Tells a hung browser (stopped, deadlocked, swapped to a halt) from a busy one. The probe is the
 * cheapest DevTools round trip there is, Browser.getVersion, which the browser process answers
 * itself: no page takes part, so a document busy in a script for minutes never looks hung, while a
 * browser that stops answering it is found within the hang timeout, whatever renders are doing.
 *
 * Time is counted in ticks as well as milliseconds: a probe is deemed unanswered only after it has
 * stayed unanswered over several ticks, each after a turn of Node's event loop, so a pdfrender whose
 * own event loop froze (a slow disk, a held lock) never blames the browser for replies it had not
 * read yet.
 *
 * A ping may also go unanswered because the browser process is working flat out (a document's
 * flood of console data once kept it busy for seconds, issue 27 §3): while the browser's own CPU
 * time keeps growing it is busy, not hung, and the hang timeout counts from when it stopped. Only
 * up to a point: a browser busy without answering for `busyLimit` hang timeouts is killed all the same.
 */
import type { BrowserWork } from './browser-cpu.js';
import { performance } from 'node:perf_hooks';

/** Ticks a probe must stay unanswered (and the hang timeout pass) before the browser is deemed hung. */
const ticksPerTimeout = 5;

/** Hang timeouts a browser that keeps using CPU may leave a ping unanswered before it is killed anyway. */
const busyLimit = 6;

/** The share of one core the browser process must have used since the last tick to count as busy (idle, it uses under 1%). */
const busyShare = 0.1;

export interface Watchdog {
  /** Whether the browser answered its last probe, or the one now out is not yet overdue (two ticks). Never waits. */
  answering(): boolean;
  /** Stop probing (the browser is being closed). */
  stop(): void;
}

/**
 * Probe with `ping` every `hangTimeoutMs / 5`; call `onHung` once if one ping stays unanswered for
 * `hangTimeoutMs` while the browser makes no progress (`work`: its process's CPU time grows by less
 * than a tenth of the time passed and it is not runnable; without it, or when it answers undefined,
 * no progress is seen), or for `busyLimit` hang timeouts whatever it does. A ping that rejects (the
 * browser disconnected) stops the watch: a browser that died is its host's to notice, not a hung one.
 */
export function watchBrowser(
  ping: () => Promise<unknown>,
  hangTimeoutMs: number,
  onHung: () => void,
  work: () => BrowserWork | undefined = () => undefined,
): Watchdog {
  // `ticks` count from the probe's sending; `idle` and `since` from then too, or from the last tick the browser was seen working.
  let out: { sentAt: number; ticks: number; since: number; idle: number; cpu?: { ms: number; at: number } } | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    const now = performance.now();
    if (!out) {
      const probe = { sentAt: now, ticks: 0, since: now, idle: 0 };
      out = probe;
      ping().then(() => {
        if (out === probe) out = undefined;
      }, stop);
      return;
    }
    out.ticks += 1;
    out.idle += 1;
    // Read only once a ping is late (a tick after it went out): an answering browser costs no read.
    // Working: its CPU time grew, or it is runnable (waiting for a core on a loaded machine, where
    // it may get too little time to grow by the share; a stopped or deadlocked browser is not R).
    const seen = work();
    if (seen && ((out.cpu && seen.cpuMs - out.cpu.ms >= busyShare * (now - out.cpu.at)) || seen.runnable)) {
      out.since = now;
      out.idle = 0;
    }
    out.cpu = seen === undefined ? undefined : { ms: seen.cpuMs, at: now };
    const stalled = out.idle >= ticksPerTimeout && now - out.since >= hangTimeoutMs;
    const tooLong = out.ticks >= busyLimit * ticksPerTimeout && now - out.sentAt >= busyLimit * hangTimeoutMs;
    if (stalled || tooLong) {
      stop();
      onHung();
    }
  }, hangTimeoutMs / ticksPerTimeout);
  // The watch never keeps a process alive on its own (a CLI run that is done exits).
  timer.unref();
  return {
    answering: () => !stopped && (out === undefined || out.ticks < 2),
    stop,
  };
}
