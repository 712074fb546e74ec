/**
 * A bounded set of warm pages. Reusing a page costs a fraction of opening one (about 48 ms
 * against 230 ms per invoice here), so pages live across documents; each sits in its own browser
 * context, so clearing one page's cookies never touches a document rendering next to it.
 *
 * Pages are shared fairly between callers (API keys, client addresses; the CLI is one caller). One
 * caller may hold at most `maxPerCaller` of them (default all), and a free place goes to the waiting
 * caller holding the fewest (urgent work first), not to whoever asked first. One place more than
 * the pool's size is kept for a caller that holds none, so a caller whose documents hold every page
 * for minutes (a long waitDelay) does not keep another caller's one-paragraph render waiting: with
 * one caller the pool is as it was, with several it holds at most one page more. An urgent wait is
 * bounded (`maxWaitMs`): past it the render is refused, 503 BROWSER_BUSY with Retry-After.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import { PdfRenderError } from '../../errors.js';
import { raceAbort, raceUntil, valueWithin } from '../../race.js';
import { BrowserGone } from '../browser/browser-gone.js';
import { frameGateOf, type FrameGate } from './frame-gate.js';
import { openControlledPage } from './open-page.js';
import { deadlineSignal } from '../deadline.js';
import type { BrowserHost } from '../browser/browser-host.js';
import type { PageGuard } from './page-guard.js';
import { watchPageState, type PageState } from './page-state.js';
import { scriptErrorHook, scriptErrorHookArgs } from '../report/script-errors.js';

/** One warm page and what belongs to it. */
export interface Slot {
  page: Page;
  context: BrowserContext;
  client: CDPSession;
  generation: number;
  renders: number;
  /** What the last document left behind, as the page reports it (see page-state.ts). */
  state: PageState;
  /** Rejects when the page's renderer crashes; every render races against it. */
  crashed: Promise<never>;
  /** Rejects when the page's whole browser is gone (died, or killed as hung); every render races against it too. */
  gone: Promise<never>;
  /** Set once the renderer has crashed, so an idle page that crashed is never handed out. */
  broken: boolean;
  /** Refuses what the document may not load and collects what it could not. */
  guard: PageGuard;
  /** The isolated world fonts are awaited in before printing, while the page's window has it (print-pdf.ts). */
  printWorld?: number;
  /** The CSS media type and features the page emulates, as printDocument last sent them ('' for none sent). */
  media: string;
  /** The User-Agent override printDocument last sent ('' for Chromium's own). */
  userAgent: string;
  /** Runs the page's animation frames, which happen only when asked for (frame-gate.ts); one gate per browser. */
  frames: FrameGate;
  /** The viewport printDocument last set: the printable area of the last request's paper ('' for none set). */
  viewport: string;
}

/** Prepares a new page for documents (network guard, JavaScript switch); given by the engine. */
export type PageSetup = (page: Page, client: CDPSession) => Promise<PageGuard>;

/** How long a page may take to open: one takes well under a second, so one that has not by then will not. */
const openTimeoutMs = 30_000;

/** How long a page may take to close before its browser is deemed hung and killed. */
const closeGraceMs = 5_000;

/** Callers whose last turn is remembered (for round-robin); beyond, the longest ago is forgotten and counts as never served. */
const maxRememberedCallers = 10_000;

/** Who waits for a place, in which lane, since when, and how to hand it one. */
interface Waiter {
  caller: string;
  lane: 'urgent' | 'background';
  since: number;
  grant: () => void;
}

/** How the pool shares its pages between callers. */
export interface PoolSharing {
  /** Pages one caller may hold at once (default: the pool's size). */
  maxPerCaller?: number;
  /** How long an urgent render may wait for a page before it is refused (default: as long as its caller waits). */
  maxWaitMs?: number;
}

/** What the pool holds at a moment. */
export interface PoolLoad {
  busy: number;
  idle: number;
  waiting: number;
}

export class PagePool {
  private readonly idle: Slot[] = [];
  private readonly waiters: Waiter[] = [];
  /** Pages held per caller. */
  private readonly held = new Map<string, number>();
  /** When each caller was last handed a place (a count of hand-outs), oldest first; bounded, see take(). */
  private readonly lastTurn = new Map<string, number>();
  private turns = 0;
  private inUse = 0;
  private readonly maxPerCaller: number;

  constructor(
    private readonly host: BrowserHost,
    readonly size: number,
    /** A page is replaced after this many documents, which keeps renderer memory flat. */
    private readonly recycleAfter: number,
    private readonly setup: PageSetup,
    private readonly sharing: PoolSharing = {},
  ) {
    this.maxPerCaller = Math.min(size, sharing.maxPerCaller ?? size);
  }

  /**
   * Wait for a free place, then hand out a warm page (opening one if none is idle). Background
   * waits behind every urgent one; between callers, the one holding fewest goes first. `caller`
   * names who the render is for (default: one caller for everything).
   */
  async acquire(
    signal: AbortSignal,
    lane: 'urgent' | 'background' = 'urgent',
    caller = '',
  ): Promise<Slot & { caller: string }> {
    await this.takePlace(signal, lane, caller);
    let held: { browser: Browser; generation: number } | undefined;
    try {
      // use() counts the render toward the browser's recycle and keeps that browser open until release.
      const { browser, generation, gone } = await this.host.use();
      held = { browser, generation };
      for (let slot = this.idle.pop(); slot; slot = this.idle.pop()) {
        if (slot.generation === generation && !slot.broken && !slot.page.isClosed())
          return Object.assign(slot, { caller });
        void this.discard(slot);
      }
      // A browser that hangs while a page opens is killed by its watchdog, which ends the wait; a
      // page whose own renderer stalls (the browser still answering) is given up on, and the caller
      // may stop waiting. A page that opens after that is closed.
      const opening = this.open(browser, generation, gone);
      const stalled = deadlineSignal(openTimeoutMs, 'the browser could not open a page for the document in time');
      try {
        return Object.assign(await raceAbort(raceUntil(opening, [gone]), AbortSignal.any([signal, stalled.signal])), {
          caller,
        });
      } catch (error) {
        void opening.then(
          (slot) => slot.context.close().catch(() => undefined),
          () => undefined,
        );
        throw error;
      } finally {
        stalled.clear();
      }
    } catch (error) {
      if (held !== undefined) this.host.done(held.generation);
      this.giveBackPlace(caller);
      // The browser went away while a page was being opened on it: not the document's doing either.
      if (held && !held.browser.connected) throw new BrowserGone(error);
      throw error;
    }
  }

  /** Return a page; one that is not `reusable` (deadline, crash, error) is closed instead. */
  release(slot: Slot & { caller: string }, reusable: boolean): void {
    slot.renders += 1;
    if (
      reusable &&
      !slot.broken &&
      slot.renders < this.recycleAfter &&
      this.host.isCurrent(slot.generation) &&
      !slot.page.isClosed()
    ) {
      this.idle.push(slot);
      this.host.done(slot.generation);
      this.giveBackPlace(slot.caller);
      return;
    }
    // The place is given back only once the page is gone, so a hung renderer never runs beside a full pool.
    void this.discard(slot).finally(() => {
      this.host.done(slot.generation);
      this.giveBackPlace(slot.caller);
    });
  }

  /** Pages rendering, warm pages resting, and renders waiting for a place, as they are now (for /metrics). */
  load(): PoolLoad {
    return { busy: this.inUse, idle: this.idle.length, waiting: this.waiters.length };
  }

  /** Close the idle pages now, and with them what their renderers hold; whether there were any. */
  closeIdle(): boolean {
    const idle = this.idle.splice(0);
    for (const slot of idle) void this.discard(slot);
    return idle.length > 0;
  }

  /** Close every idle page (the browser itself belongs to the host). */
  async drain(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((slot) => this.discard(slot)));
  }

  private async open(browser: Browser, generation: number, gone: Promise<never>): Promise<Slot> {
    const context = await browser.createBrowserContext();
    try {
      const { page, client } = await openControlledPage(browser, context);
      let onCrash: (error: Error) => void = () => undefined;
      const crashed = new Promise<never>((_, reject) => (onCrash = reject));
      crashed.catch(() => undefined); // observed by the render that races against it
      // The page's settings are independent CDP calls: sent together, they cost one round trip.
      const [guard, state] = await Promise.all([
        this.setup(page, client),
        watchPageState(page, client),
        // No HTTP cache: a document could otherwise time a fetch to learn what the one before it loaded.
        page.setCacheEnabled(false),
        // Downloads (a link with download=, a navigation to an attachment) never touch the disk.
        client.send('Page.setDownloadBehavior', { behavior: 'deny' }),
        // print() would wait for a dialog; open() would spawn a popup per call (a hundred of them take
        // seconds to close), so both are no-ops. Popups that still appear (target=_blank) are closed below.
        page.evaluateOnNewDocument(() => {
          window.print = () => undefined;
          window.open = () => null;
        }),
        // The document's script errors, caught in the page for its report (report/script-errors.ts).
        page.evaluateOnNewDocument(scriptErrorHook, ...scriptErrorHookArgs),
      ]);
      const slot: Slot = {
        page,
        context,
        client,
        generation,
        renders: 0,
        state,
        crashed,
        gone,
        broken: false,
        guard,
        frames: frameGateOf(browser),
        media: '',
        userAgent: '',
        viewport: '',
      };
      page.on('error', () => {
        slot.broken = true;
        onCrash(
          new PdfRenderError('RENDER_PDF_FAILED', 'the renderer crashed while rendering the document (out of memory?)'),
        );
      });
      // Documents must never stall waiting for a person: dismiss dialogs, close popups.
      // A beforeunload prompt is accepted instead, since dismissing it would keep the document
      // from being navigated away from after printing.
      page.on(
        'dialog',
        (dialog) => void (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined),
      );
      page.on('popup', (popup) => void popup?.close().catch(() => undefined));
      return slot;
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  private async discard(slot: Slot): Promise<void> {
    const closing = slot.context.close().then(
      () => true,
      () => true,
    );
    if (!(await valueWithin(closing, closeGraceMs, false))) await this.host.kill(slot.generation);
  }

  /** Whether `caller` may take a place now: under its own cap, and within the pool (or its one place more, for a caller holding none). */
  private admits(caller: string): boolean {
    const held = this.held.get(caller) ?? 0;
    if (held >= this.maxPerCaller) return false;
    return this.inUse < this.size || (this.inUse < this.size + 1 && held === 0);
  }

  private take(caller: string): void {
    this.inUse += 1;
    this.held.set(caller, (this.held.get(caller) ?? 0) + 1);
    // Re-inserted, so the map stays in order of turns and the oldest can be forgotten first.
    this.lastTurn.delete(caller);
    this.lastTurn.set(caller, (this.turns += 1));
    if (this.lastTurn.size > maxRememberedCallers) this.lastTurn.delete(this.lastTurn.keys().next().value!);
  }

  private takePlace(signal: AbortSignal, lane: 'urgent' | 'background', caller: string): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    // Nobody waiting ahead of it that the place should go to first.
    if (this.admits(caller) && !this.waiters.some((waiter) => this.admits(waiter.caller))) {
      this.take(caller);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const bound =
        lane === 'urgent' && this.sharing.maxWaitMs !== undefined
          ? setTimeout(() => leave(busy(this.sharing.maxWaitMs!)), this.sharing.maxWaitMs)
          : undefined;
      const leave = (reason: unknown) => {
        const index = this.waiters.indexOf(waiter);
        if (index >= 0) this.waiters.splice(index, 1);
        clearTimeout(bound);
        signal.removeEventListener('abort', onAbort);
        reject(reason);
      };
      const onAbort = () => leave(signal.reason);
      const waiter: Waiter = {
        caller,
        lane,
        since: performance.now(),
        grant: () => {
          clearTimeout(bound);
          signal.removeEventListener('abort', onAbort);
          this.take(caller);
          resolve();
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  private giveBackPlace(caller: string): void {
    this.inUse -= 1;
    const held = (this.held.get(caller) ?? 1) - 1;
    if (held > 0) this.held.set(caller, held);
    else this.held.delete(caller);
    // Hand out every place that is free now: urgent first, then the caller holding fewest, then the longest waiting.
    for (let next = this.nextWaiter(); next; next = this.nextWaiter()) {
      this.waiters.splice(this.waiters.indexOf(next), 1);
      next.grant();
    }
  }

  private nextWaiter(): Waiter | undefined {
    let best: Waiter | undefined;
    for (const waiter of this.waiters) {
      if (this.admits(waiter.caller) && (!best || this.goesBefore(waiter, best))) best = waiter;
    }
    return best;
  }

  /**
   * Whether `a` is ahead of `b` in line: urgent work first, then the caller holding fewer pages, then
   * the caller whose last turn is longer ago (round-robin: one that just had a page waits for the
   * others), then the longer wait.
   */
  private goesBefore(a: Waiter, b: Waiter): boolean {
    if (a.lane !== b.lane) return a.lane === 'urgent';
    const heldA = this.held.get(a.caller) ?? 0;
    const heldB = this.held.get(b.caller) ?? 0;
    if (heldA !== heldB) return heldA < heldB;
    const turnA = this.lastTurn.get(a.caller) ?? 0;
    const turnB = this.lastTurn.get(b.caller) ?? 0;
    return turnA !== turnB ? turnA < turnB : a.since < b.since;
  }
}

/** The refusal of an urgent render that waited `ms` for a page without getting one. */
function busy(ms: number): PdfRenderError {
  return new PdfRenderError(
    'BROWSER_BUSY',
    `every page was busy for ${Math.round(ms / 1000)} s (other renders hold them); try again shortly`,
    { retryAfter: 5 },
  );
}
