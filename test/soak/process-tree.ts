/**
 * Memory and process counts of a process and everything it started, read from /proc (Linux only)
 * by the bench's reader: the soak test samples the server this way, Chromium's browser, zygotes
 * and renderers included, and counts the Chromium processes among them.
 */
import { readFileSync } from 'node:fs';
import { parseProcStat } from '../../src/proc-stat.js';
import { treeMemory } from '../../bench/lib/process-tree.mjs';

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
    return parseProcStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).state !== 'Z';
  } catch {
    return false;
  }
}

/** Sample the tree under `root` now. */
export function sampleTree(root: number): TreeSample {
  const { pids, processes, rssKb, pssKb } = treeMemory(root);
  const chromiumPids = pids.filter(isChromium);
  return { processes, chromium: chromiumPids.length, rssKb, pssKb, chromiumPids };
}
