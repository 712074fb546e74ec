/**
 * Memory and process counts of a process and everything it started, read from /proc (Linux only):
 * the soak test samples the server this way, Chromium's browser, zygotes and renderers included.
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface TreeSample {
  /** Processes in the tree, the root included. */
  processes: number;
  /** Of those, the ones whose program is Chromium (browser, zygote, GPU, utility, renderers, crashpad). */
  chromium: number;
  /** Sum of VmRSS over the tree, in KiB; pages shared between processes are counted once per process. */
  rssKb: number;
  /** Sum of Pss over the tree, in KiB: shared pages split between their users, so it does not overcount. */
  pssKb: number;
  /** Pids of the Chromium processes, to check that none outlives the server. */
  chromiumPids: number[];
}

/** The parent pid from /proc/<pid>/stat, or undefined when the process is gone. */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The program name (field 2) may hold spaces and parentheses; the fields after the last ")" are state, ppid, ...
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** `root` and all its descendants that are alive now. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parent = parentOf(Number(name));
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    tree.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The "<field>: <n> kB" value of a /proc file, 0 when absent (zombies, kernel threads) or gone. */
function kbField(path: string, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(path, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * True when the process runs a Chromium binary. Checked on the program name (comm): Chromium
 * rewrites its helpers' command lines into one space-separated string, so argv[0] is unreliable.
 */
function isChromium(pid: number): boolean {
  try {
    return /chrom/i.test(readFileSync(`/proc/${pid}/comm`, 'utf8'));
  } catch {
    return false;
  }
}

/** True when the process exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Sample the tree under `root` now. */
export function sampleTree(root: number): TreeSample {
  const pids = processTree(root);
  const chromiumPids = pids.filter(isChromium);
  return {
    processes: pids.length,
    chromium: chromiumPids.length,
    rssKb: pids.reduce((sum, pid) => sum + kbField(`/proc/${pid}/status`, 'VmRSS'), 0),
    pssKb: pids.reduce((sum, pid) => sum + kbField(`/proc/${pid}/smaps_rollup`, 'Pss'), 0),
    chromiumPids,
  };
}
