/** Types of process-tree.mjs, for the TypeScript that shares it (the soak test). */

/** `root` and its live descendants. */
export function processTree(root: number): number[];
/** Sum of VmRSS over the tree, in KiB (shared pages counted once per process). */
export function treeRssKb(root: number): number;
/** One reading of the tree: summed RSS and PSS (KiB), the number of processes and their pids. */
export function treeMemory(root: number): { rssKb: number; pssKb: number; processes: number; pids: number[] };
/** CPU time used so far (ms) by `root` and by the rest of its live tree. */
export function treeCpuMs(root: number): { own: number; rest: number };
/** Sample the tree's summed RSS every `everyMs` until stop(), which returns the peak in KiB. */
export function startPeakSampler(root: number, everyMs?: number, onSample?: (kb: number) => void): { stop(): number };
