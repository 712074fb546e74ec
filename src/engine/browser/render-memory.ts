/**
 * The memory bound on renders (issue 31 §1). One long table can make a renderer grow by gigabytes
 * (measured: 280 pages, 1.43 GB in the renderer against 146 MB in the browser process and no print
 * compositor process of its own), and two at once could take the machine and every other caller's
 * renders with it. So while a render holds a page, the resident memory of every renderer of the
 * browser's tree is read from /proc every 200 ms (every 50 ms once they hold half the limit); when
 * their sum passes the limit, the pages resting between documents are closed first (they keep some
 * of a long document's memory), and if it is still past at the next reading the largest is killed
 * (SIGKILL: its memory was gone 87 to 391 ms after, against 548 to 726 ms after closing its target,
 * on a renderer busy laying out). DevTools maps no target to a pid, so the kill reaches its render
 * through the page's crash: a crash shortly after a kill is that kill, handed to one render only.
 */
import { totalmem } from 'node:os';
import type { PdfRenderError } from '../../errors.js';
import { isMemoryRefusal, memoryStopError, type MemoryStop } from './memory-stop.js';
import { raceAbort } from '../../race.js';
import { renderersOf, zygotesOf } from './renderer-processes.js';

/** The default limit: a quarter of the machine's memory, in whole megabytes (messages name it as "6026MB"). */
export const defaultMaxRenderMemory = (): number => Math.floor(totalmem() / 4 / 2 ** 20) * 2 ** 20;

/** How often the renderers are read while a render holds a page. */
const sampleMs = 200;
/** How often once the renderers hold half the limit: a long table's renderer grew by up to 140 MB between samples 200 ms apart here. */
const closeSampleMs = 50;
/** How long after a kill a page's crash is taken for it (the crash is reported within milliseconds). */
const claimWindowMs = 5_000;
/** Readings in a row without a renderer (a second's worth) before the limit is said not to hold. */
const unseenWarnAfter = 5;
/** How long a render that failed right after a kill waits for its page's crash to be reported. */
const crashWaitMs = 1_000;

export interface RenderMemoryOptions {
  /** Bytes the renderers may use together. */
  limit: number;
  /** The pids of the running browsers (the roots of the trees to read). */
  roots: () => number[];
  /** Stops a renderer; default SIGKILL. */
  kill?: (pid: number) => void;
  /** Told of each renderer stopped (the server's metrics). */
  stopped?: () => void;
  /**
   * Closes the pages resting between documents, whose renderers keep some of a long document's
   * memory; answers whether there were any (the pool's closeIdle). Tried before a render is stopped.
   */
  relieve?: () => boolean;
  /** Told once when no renderer can be read while renders hold pages: the limit is not enforced. */
  warn?: (message: string) => void;
}

/** Watches renderer memory while renders hold pages, and stops the largest past the limit. */
export class RenderMemory {
  private holds = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly stops: MemoryStop[] = [];
  private readonly kill: (pid: number) => void;
  private readonly zygoteCache = new Map<number, number[]>();
  /** One promise per render holding a page, settled when it lets go. */
  private readonly holding = new Set<Promise<void>>();
  /** Renderers killed lately, and when. */
  private readonly killed = new Map<number, number>();
  /** Readings in a row that found no renderer while a render held a page; -1 once warned. */
  private unseen = 0;

  constructor(private readonly options: RenderMemoryOptions) {
    this.kill = options.kill ?? ((pid) => process.kill(pid, 'SIGKILL'));
  }

  /** Watch while a render holds a page; the function returned lets go. */
  hold(): () => void {
    let ended!: () => void;
    const holding = new Promise<void>((resolve) => (ended = resolve));
    this.holding.add(holding);
    this.holds += 1;
    if (!this.timer) this.schedule(sampleMs);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.holding.delete(holding);
      ended();
      this.holds -= 1;
      if (this.holds === 0) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  // The next sample, sooner once the renderers come near the limit.
  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      const total = this.sample();
      if (this.timer) this.schedule(total > this.options.limit / 2 ? closeSampleMs : sampleMs);
    }, ms);
    this.timer.unref();
  }

  /** Read every renderer once and stop the largest if together they are past the limit; answers their sum. */
  sample(): number {
    const now = Date.now();
    // A renderer killed a moment ago may still be read while it exits: it is not stopped twice.
    for (const [pid, at] of this.killed) if (now - at > claimWindowMs) this.killed.delete(pid);
    const roots = this.options.roots();
    // Browsers come and go (recycled, replaced): only the running ones' zygotes are kept.
    for (const root of this.zygoteCache.keys()) if (!roots.includes(root)) this.zygoteCache.delete(root);
    const renderers = renderersOf(roots.flatMap((root) => this.zygotes(root)));
    this.noteUnseen(roots.length > 0 && renderers.length === 0);
    const total = renderers.reduce((sum, each) => sum + each.rss, 0);
    if (total <= this.options.limit) return total;
    // Resting pages go first: closing them stops no render, and the next sample sees what is left.
    if (this.options.relieve?.()) return total;
    const largest = renderers.filter((each) => !this.killed.has(each.pid)).sort((a, b) => b.rss - a.rss)[0];
    if (!largest) return total;
    try {
      this.kill(largest.pid);
    } catch {
      return total; // gone already
    }
    this.killed.set(largest.pid, now);
    this.options.stopped?.();
    const { limit } = this.options;
    // The document's own fault when it passed the limit alone, or nearly so: the others together hold
    // less than a tenth of it (idle pages and small renders). Beside others that hold more, it is
    // refused to try again, even where each of them is small (many medium renders at once).
    const alone = largest.rss > limit || total - largest.rss < limit / 10;
    this.stops.push({ pid: largest.pid, rss: largest.rss, total, limit, alone, at: now });
    return total - largest.rss;
  }

  /**
   * Whether a page that laid out a document of `pages` pages may be reused. Its renderer keeps much of
   * a long document's layout after the page is reset (225 MB of its own after a 91-page table, 125
   * after 46 pages, 52 after a 99-page report, 16 idle), and an idle page's memory counts against
   * the limit as a render's does: after a long document, while the renderers hold more than a quarter
   * of the limit, the page is closed, which frees all of it. A full garbage collection
   * (HeapProfiler.collectGarbage, 262 ms) left 150 of the 225 MB, a pressure notification none; and
   * closing after every long document cost a batch of 99-page reports 70 ms of CPU each (a new page).
   */
  reusable(pages: number): boolean {
    if (pages < longDocumentPages) return true;
    const renderers = renderersOf(this.options.roots().flatMap((root) => this.zygotes(root)));
    return renderers.reduce((sum, each) => sum + each.rss, 0) <= this.options.limit / 4;
  }

  /**
   * Run `attempt`; when it was refused because other large documents held the memory, wait for the
   * renders holding pages then to end (each has its deadline) and run it once more (the CLI's way:
   * the server answers 503 instead, and the async worker tries again later).
   */
  async whenFree<T>(attempt: () => Promise<T>, signal: AbortSignal): Promise<T> {
    try {
      return await attempt();
    } catch (error) {
      if (!isMemoryRefusal(error)) throw error;
    }
    await raceAbort(Promise.all([...this.holding]), signal);
    return attempt();
  }

  /**
   * The error of a render whose page crashed (`crashed`) because its renderer was stopped here, or
   * undefined when no stop is recent; waits briefly for the crash when the print failed first.
   */
  async stopOf(
    page: { broken: boolean; crashed: Promise<never> },
    setting: string,
  ): Promise<PdfRenderError | undefined> {
    this.forgetOld();
    if (this.stops.length === 0) return undefined;
    if (!page.broken) await Promise.race([page.crashed.catch(() => undefined), delay(crashWaitMs)]);
    const stop = page.broken ? this.stops.shift() : undefined;
    return stop && memoryStopError(stop, setting);
  }

  // A browser's zygotes, found once it has them (they start with it, before its first page).
  private zygotes(root: number): number[] {
    let known = this.zygoteCache.get(root);
    if (!known?.length) {
      known = zygotesOf(root);
      this.zygoteCache.set(root, known);
    }
    return known;
  }

  // A page being rendered always has a renderer: none found for a second of readings means /proc
  // cannot show them (not Linux, or mounted with hidepid), and the limit holds nothing back.
  private noteUnseen(none: boolean): void {
    if (this.unseen < 0) return;
    this.unseen = none ? this.unseen + 1 : 0;
    if (this.unseen < unseenWarnAfter) return;
    this.unseen = -1;
    this.options.warn?.(
      'the memory limit on renders is not enforced here: no Chromium renderer could be read from /proc (not Linux, or /proc mounted with hidepid)',
    );
  }

  private forgetOld(): void {
    const now = Date.now();
    while (this.stops[0] && now - this.stops[0].at > claimWindowMs) this.stops.shift();
  }
}

/** Pages of a document after which its page may be closed rather than reused. */
const longDocumentPages = 50;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
