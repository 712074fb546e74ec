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
 */
import { performance } from 'node:perf_hooks';

/** Ticks a probe must stay unanswered (and the hang timeout pass) before the browser is deemed hung. */
const ticksPerTimeout = 5;

export interface Watchdog {
  /** Whether the browser answered its last probe, or the one now out is not yet overdue (two ticks). Never waits. */
  answering(): boolean;
  /** Stop probing (the browser is being closed). */
  stop(): void;
}

/**
 * Probe with `ping` every `hangTimeoutMs / 5`; call `onHung` once if one ping stays unanswered for
 * `hangTimeoutMs`. A ping that rejects (the browser disconnected) stops the watch: a browser that
 * died is its host's to notice, not a hung one.
 */
export function watchBrowser(ping: () => Promise<unknown>, hangTimeoutMs: number, onHung: () => void): Watchdog {
  let out: { sentAt: number; ticks: number } | undefined;
  let stopped = false;
  const stop = () => {
    stopped = true;
    clearInterval(timer);
  };
  const timer = setInterval(() => {
    if (!out) {
      const probe = { sentAt: performance.now(), ticks: 0 };
      out = probe;
      ping().then(() => {
        if (out === probe) out = undefined;
      }, stop);
      return;
    }
    out.ticks += 1;
    if (out.ticks >= ticksPerTimeout && performance.now() - out.sentAt >= hangTimeoutMs) {
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
