/**
 * The CPU time the browser process itself has used, from /proc: what tells the watchdog a browser
 * that is slow to answer because it is working (relaying a document's flood of data, say) from one
 * that stopped. Only the browser process counts, not its renderers: it answers the watchdog's ping
 * itself, and a renderer busy with a document says nothing of whether the browser still runs.
 */
import { readFileSync } from 'node:fs';
import { childProcesses as childrenOf, parseProcStat } from '../../proc-stat.js';

// /proc/<pid>/stat counts CPU time in clock ticks, which Linux reports to user space as 1/100 s (USER_HZ).
const msPerTick = 10;

/** What the browser process is doing: the CPU milliseconds it used so far, and whether it is runnable now. */
export interface BrowserWork {
  cpuMs: number;
  /** In state R: running, or waiting for a core (on a loaded machine a working browser may get little CPU time). */
  runnable: boolean;
}

/**
 * A reader of what the browser started as `pid` is doing: that process and any child of it without
 * a `--type=` switch (a wrapper script, as Debian's chromium-headless-shell is, starts the real
 * browser as its child; renderers, zygotes and utilities all carry one). The reader answers
 * undefined where there is no /proc (not Linux) or the browser is gone.
 */
export function browserCpuReader(pid: number): () => BrowserWork | undefined {
  let pids: number[] | undefined;
  return () => {
    try {
      pids ??= [
        pid,
        ...childrenOf(pid).filter((child) => !readFileSync(`/proc/${child}/cmdline`, 'latin1').includes('--type=')),
      ];
      const stats = pids.map((each) => parseProcStat(readFileSync(`/proc/${each}/stat`, 'latin1')));
      return {
        cpuMs: stats.reduce((sum, stat) => sum + stat.cpuTicks, 0) * msPerTick,
        // The wrapper sleeps while the browser it started works: the real browser is the last read.
        runnable: stats.at(-1)?.state === 'R',
      };
    } catch {
      return undefined;
    }
  };
}
