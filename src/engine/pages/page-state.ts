/**
 * What a document left behind on its pooled page, observed rather than guessed from its HTML.
 *
 * A window outlives the document written into it (document.open keeps the window's globals,
 * timers, workers and pending navigations), so a page may only take the next caller's document as
 * it is when the last one could have left nothing alive there. Two things can: script that ran in
 * the page's main world (DevTools' Debugger reports every script V8 compiles there: inline
 * handlers, javascript: URLs and same-origin frames included), and a navigation the document asked
 * for (a meta refresh, which needs no script, or anything that moves the page or its history). Each
 * taints the page; a tainted page gets a fresh window before its next document. Frames' origins are
 * collected whatever ran, since cross-origin frames run script in other processes and can store data
 * for their origin, which must be wiped before another caller's document could embed that origin.
 * A frame of another origin than its page's stores under a key partitioned by the page's site, which
 * clearing by origin does not reach (nor the service worker it may register there): such a page is
 * not reused at all (`partitioned`).
 */
import type { CDPSession, Frame, Page } from 'puppeteer-core';

export interface PageState {
  /** Why the page's window cannot take another document as it is, or null when it can. */
  readonly taint: string | null;
  /** Script ran in the page's main world since the last clear (its document may wait on an animation frame). */
  readonly scripted: boolean;
  /** The page's main frame, for DevTools calls that name a frame. */
  readonly frameId: string;
  /** Origins of the frames the page had (opaque ones left out), whose storage must be cleared. */
  readonly origins: ReadonlySet<string>;
  /** A frame of another origin than the page's own was loaded: what it stored may be in a partition only closing the page's context removes. Never cleared. */
  readonly partitioned: boolean;
  /**
   * No caller's document (nor its cookies) has been in the page yet: it is new, in a browser context
   * of its own (page-pool.ts), so nothing is stored there for a fresh window to wipe.
   */
  readonly pristine: boolean;
  /** A caller's document is about to load: the page is not pristine from here on. */
  taken(): void;
  /** Forget what was seen: the page is known clean from here on (a fresh window, wiped storage). */
  clear(): void;
}

// Navigation events of the main frame, every one of which means the document asked to leave (or
// rewrite) its URL. setDocumentContent, which writes each document, fires none of them.
const navigationEvents = [
  'Page.frameScheduledNavigation',
  'Page.frameRequestedNavigation',
  'Page.frameStartedNavigating',
  'Page.navigatedWithinDocument',
] as const;

/** Start watching a new page. It starts tainted: its first document needs a window set up by pdfrender. */
export async function watchPageState(page: Page, client: CDPSession): Promise<PageState> {
  let taint: string | null = 'the page has not been set up yet';
  let scripted = false;
  let partitioned = false;
  let pristine = true;
  const origins = new Set<string>();
  // Sent together, in one round trip: no document runs before the page's first navigation, which
  // waits for this, so no event the listeners below look for comes before they are in place.
  const settings = Promise.all([
    client.send('Page.enable'),
    client.send('Page.setLifecycleEventsEnabled', { enabled: true }),
    // With JavaScript off (--disable-javascript) Chromium refuses the Debugger, and no script can run to report.
    client.send('Debugger.enable').catch(unlessScriptProhibited),
    // A `debugger;` statement would otherwise stop the document until its deadline.
    client.send('Debugger.setSkipAllPauses', { skip: true }).catch(unlessScriptProhibited),
  ]);
  settings.catch(() => undefined); // awaited below, unless the frame tree failed first
  const { frameTree } = await client.send('Page.getFrameTree');
  const frameId = frameTree.frame.id;

  client.on('Debugger.scriptParsed', (event) => {
    if (event.executionContextAuxData?.isDefault !== true) return;
    scripted = true;
    taint ??= 'the document ran script';
  });
  for (const name of navigationEvents) {
    client.on(name, (event: { frameId: string; reason?: string }) => {
      if (event.frameId === frameId)
        taint ??= `the document asked for a navigation${event.reason ? ` (${event.reason})` : ''}`;
    });
  }
  page.on('framenavigated', (frame: Frame) => {
    const origin = storageOrigin(frame.url());
    if (origin) origins.add(origin);
    // Any other origin, not only another site: telling sites apart needs the public suffix list, and
    // a page not reused costs one page opening (about 0.2 s), never a leak.
    if (origin && frame !== page.mainFrame() && origin !== storageOrigin(page.mainFrame().url())) partitioned = true;
  });

  await settings;

  return {
    get taint() {
      return taint;
    },
    get scripted() {
      return scripted;
    },
    frameId,
    origins,
    get partitioned() {
      return partitioned;
    },
    get pristine() {
      return pristine;
    },
    taken() {
      pristine = false;
    },
    // `partitioned` stays: such a page is closed, never reset, and a cross-site frame's navigation
    // (its own process and session) may be reported only during the reset.
    clear() {
      taint = null;
      scripted = false;
      origins.clear();
    },
  };
}

/** The origin under which a frame's storage is kept; file: documents share one, about:, data: and blob: have none of their own. */
export function storageOrigin(url: string): string | null {
  if (url.startsWith('file:')) return 'file://';
  if (!/^https?:/i.test(url)) return null;
  return new URL(url).origin;
}

/** Rethrow `error` unless it is Chromium refusing script because JavaScript is off for the page. */
export function unlessScriptProhibited(error: unknown): void {
  if (!(error instanceof Error && /Script execution is prohibited/.test(error.message))) throw error;
}
