/**
 * Memory and CPU time of a process and everything it started, read from /proc (Linux only): pdfrender or a
 * rival tool together with its Chromium browser, zygotes, renderers and utilities. The soak test
 * reads its server the same way (process-tree.d.mts gives TypeScript the types).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { parseProcStat } from '../../dist/proc-stat.js';

/** The parent pid from /proc/<pid>/stat, or undefined when the process is gone. */
function parentOf(pid) {
  try {
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).parent;
  } catch {
    return undefined;
  }
}

// Parent pids by pid. A parent never changes while a process lives (only when the parent dies and the
// child is re-parented, and then it still belongs to the case that started it), so each pid's stat
// is read once: reading every /proc/<pid>/stat on each sample cost ~20 ms on a 2-core machine.
const parents = new Map();

/** `root` and its live descendants. Chromium runs in a process group of its own, but it is still a child by ppid. */
export function processTree(root) {
  const live = new Set();
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (name.charCodeAt(0) > 57) continue; // not a pid: letters sort after digits
    const pid = Number(name);
    live.add(pid);
    if (!parents.has(pid)) parents.set(pid, parentOf(pid));
    const parent = parents.get(pid);
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  // Forget the dead, so a reused pid is looked up afresh.
  for (const pid of parents.keys()) if (!live.has(pid)) parents.delete(pid);
  const tree = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop();
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The "<field>: <n> kB" value of a /proc file; 0 when absent (zombies) or gone. */
function kbField(path, field) {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Sum of VmRSS over the tree, in KiB. Pages shared between processes (Chromium's binary and
 * shared memory between browser and renderers) are counted once per process, so this over-counts
 * what the tree really holds; it is what `ps` and most monitors show, and the same over-count
 * applies to every tool measured. PSS splits shared pages but costs a page-table walk per process
 * (smaps_rollup), too slow to read every 50 ms beside the work being measured, so it is read only
 * for the few single readings (treeMemory).
 */
export function treeRssKb(root) {
  let total = 0;
  for (const pid of processTree(root)) total += kbField(`/proc/${pid}/status`, 'VmRSS');
  return total;
}

/** One reading of the tree: summed RSS and PSS (KiB), the number of processes and their pids. */
export function treeMemory(root) {
  const pids = processTree(root);
  let rssKb = 0;
  let pssKb = 0;
  for (const pid of pids) {
    rssKb += kbField(`/proc/${pid}/status`, 'VmRSS');
    pssKb += kbField(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return { rssKb, pssKb, processes: pids.length, pids };
}

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/**
 * CPU time used so far (ms) by `root` itself and by the rest of its tree (for pdfrender: its
 * Chromium). Only live processes count: a renderer that exited between two readings takes its
 * time with it, so take the readings around work that keeps its processes (a warm server).
 */
export function treeCpuMs(root) {
  const ms = (pid) => {
    try {
      return (parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).cpuTicks * 1000) / ticksPerSecond;
    } catch {
      return 0; // gone meanwhile
    }
  };
  let rest = 0;
  for (const pid of processTree(root)) if (pid !== root) rest += ms(pid);
  return { own: ms(root), rest };
}

/**
 * Sample the tree's summed RSS every `everyMs` until stop() is called; stop() returns the peak in KiB.
 * `onSample(kb)`, when given, sees each reading (to stop a tree that grows past a cap).
 * Sampling is synchronous and short, so it runs on the runner's own timer without a worker.
 */
export function startPeakSampler(root, everyMs = 50, onSample = undefined) {
  let peakKb = 0;
  const sample = () => {
    const kb = treeRssKb(root);
    peakKb = Math.max(peakKb, kb);
    onSample?.(kb);
  };
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return peakKb;
    },
  };
}
