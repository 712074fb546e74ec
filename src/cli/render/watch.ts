/**
 * `pdfrender render --watch`: after the first round, a change to any file the documents are made
 * of (the inputs, header and footer files, the --request file, and every local file the documents
 * loaded last time: style sheets, images, fonts) runs the round again on the same engine and its
 * warm browser. Only those files count, so a log or a PDF written beside them never starts a round.
 * Changes that come together (an editor's save, a build writing many files) make one round; a
 * change during a round makes one more after it.
 */
import { watch, type FSWatcher } from 'node:fs';
import { dirname, join } from 'node:path';

export interface WatchPlan {
  /** The files to watch now: asked again after every round, as a document may load others. */
  files(): string[];
  /** Called once the watchers are first up, with how many files are watched. */
  ready(count: number): void;
  /** Runs one round of renders. */
  round(): Promise<void>;
  /** Ends the watch. */
  signal: AbortSignal;
  /** Told of every change seen in a watched folder, and whether it starts a round (--debug prints them). */
  seen?(file: string, counts: boolean): void;
}

/** How long changes are gathered before a round starts: a quiet spell this long ends the batch... */
const settleMs = 150;
/** ...or this long after its first change, so a file written without pause (a long build) still renders. */
const maxSettleMs = 1_000;

/** Watch until `plan.signal` aborts, running `plan.round` after each batch of changes. */
export async function watchAndRender(plan: WatchPlan): Promise<void> {
  if (plan.signal.aborted) return;
  const watchers = new Map<string, FSWatcher>();
  let wanted = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let batchStarted: number | undefined;
  const changed = () => {
    if (plan.signal.aborted) return;
    batchStarted ??= performance.now();
    clearTimeout(timer);
    timer = setTimeout(run, Math.max(0, Math.min(settleMs, batchStarted + maxSettleMs - performance.now())));
  };
  // A file is watched through its folder: editors save by writing a new file over it, which ends a
  // watch on the file itself. Every watcher is made again after each round: a folder deleted and made
  // again (a build cleaning its output) ends its watcher without a word on Linux.
  const rewatch = () => {
    wanted = new Set(plan.files());
    for (const watcher of watchers.values()) watcher.close();
    watchers.clear();
    for (const folder of new Set([...wanted].map((file) => dirname(file)))) {
      try {
        const watcher = watch(folder, (_event, name) => {
          if (!name) return;
          const file = join(folder, name);
          const counts = wanted.has(file);
          plan.seen?.(file, counts);
          if (counts) changed();
        });
        watcher.on('error', () => watcher.close());
        watchers.set(folder, watcher);
      } catch {
        // Gone for now (deleted between two rounds): watched again after the next round.
        plan.seen?.(folder, false);
      }
    }
  };
  const run = (): void => {
    batchStarted = undefined;
    if (running) {
      again = true;
      return;
    }
    running = plan
      .round()
      .catch(() => undefined) // a round reports its own failures; the watch goes on
      .finally(() => {
        running = undefined;
        if (plan.signal.aborted) return;
        rewatch();
        if (again) {
          again = false;
          run();
        }
      });
  };
  try {
    rewatch();
    plan.ready(wanted.size);
    await new Promise<void>((resolve) => plan.signal.addEventListener('abort', () => resolve(), { once: true }));
  } finally {
    clearTimeout(timer);
    for (const watcher of watchers.values()) watcher.close();
    await running?.catch(() => undefined);
  }
}
