/**
 * A bounded set of warm pages. Reusing a page costs a fraction of opening one (about 48 ms
 * against 230 ms per invoice here), so pages live across documents; each sits in its own browser
 * context, so clearing one page's cookies never touches a document rendering next to it.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';
import { PdfRenderError } from '../../errors.js';
import { raceAbort, valueWithin } from '../../race.js';
import { BrowserGone } from '../browser/browser-gone.js';
import { frameGateOf, type FrameGate } from './frame-gate.js';
import { openControlledPage } from './open-page.js';
import { deadlineSignal } from '../deadline.js';
import type { BrowserHost } from '../browser/browser-host.js';
import type { PageGuard } from './page-guard.js';
import { watchPageState, type PageState } from './page-state.js';

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
  /** The CSS media the page emulates ('' for Chromium's own: print, when printing); see printDocument. */
  media: string;
  /** Runs the page's animation frames, which happen only when asked for (frame-gate.ts); one gate per browser. */
  frames: FrameGate;
}

/** Prepares a new page for documents (network guard, JavaScript switch); given by the engine. */
export type PageSetup = (page: Page, client: CDPSession) => Promise<PageGuard>;

/** How long a page may take to open: one takes well under a second, so one that has not by then will not. */
const openTimeoutMs = 30_000;

/** How long a page may take to close before its browser is deemed hung and killed. */
const closeGraceMs = 5_000;

export class PagePool {
  private readonly idle: Slot[] = [];
  // Two lines of waiters: urgent ones (sync HTTP renders, CLI) always go before background ones (async jobs).
  private readonly waiters: { urgent: Array<() => void>; background: Array<() => void> } = {
    urgent: [],
    background: [],
  };
  private inUse = 0;

  constructor(
    private readonly host: BrowserHost,
    readonly size: number,
    /** A page is replaced after this many documents, which keeps renderer memory flat. */
    private readonly recycleAfter: number,
    private readonly setup: PageSetup,
  ) {}

  /** Wait for a free place, then hand out a warm page (opening one if none is idle). Background waits behind every urgent one. */
  async acquire(signal: AbortSignal, lane: 'urgent' | 'background' = 'urgent'): Promise<Slot> {
    await this.takePlace(signal, lane);
    let held: { browser: Browser; generation: number } | undefined;
    try {
      // use() counts the render toward the browser's recycle and keeps that browser open until release.
      const { browser, generation, gone } = await this.host.use();
      held = { browser, generation };
      for (let slot = this.idle.pop(); slot; slot = this.idle.pop()) {
        if (slot.generation === generation && !slot.broken && !slot.page.isClosed()) return slot;
        void this.discard(slot);
      }
      // A browser that hangs while a page opens is killed by its watchdog, which ends the wait; a
      // page whose own renderer stalls (the browser still answering) is given up on, and the caller
      // may stop waiting. A page that opens after that is closed.
      const opening = this.open(browser, generation, gone);
      const stalled = deadlineSignal(openTimeoutMs, 'the browser could not open a page for the document in time');
      try {
        return await raceAbort(Promise.race([opening, gone]), AbortSignal.any([signal, stalled.signal]));
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
      this.giveBackPlace();
      // The browser went away while a page was being opened on it: not the document's doing either.
      if (held && !held.browser.connected) throw new BrowserGone(error);
      throw error;
    }
  }

  /** Return a page; one that is not `reusable` (deadline, crash, error) is closed instead. */
  release(slot: Slot, reusable: boolean): void {
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
      this.giveBackPlace();
      return;
    }
    // The place is given back only once the page is gone, so a hung renderer never runs beside a full pool.
    void this.discard(slot).finally(() => {
      this.host.done(slot.generation);
      this.giveBackPlace();
    });
  }

  /** Close every idle page (the browser itself belongs to the host). */
  async drain(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((slot) => this.discard(slot)));
  }

  private async open(browser: Browser, generation: number, gone: Promise<never>): Promise<Slot> {
    const context = await browser.createBrowserContext();
    try {
      const page = await openControlledPage(browser, context);
      const client = await page.createCDPSession();
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

  private takePlace(signal: AbortSignal, lane: 'urgent' | 'background'): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.inUse < this.size) {
      this.inUse += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter = () => {
        signal.removeEventListener('abort', onAbort);
        this.inUse += 1;
        resolve();
      };
      const onAbort = () => {
        const line = this.waiters[lane];
        const index = line.indexOf(waiter);
        if (index >= 0) line.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters[lane].push(waiter);
    });
  }

  private giveBackPlace(): void {
    this.inUse -= 1;
    (this.waiters.urgent.shift() ?? this.waiters.background.shift())?.();
  }
}
