/**
 * A fresh window for a pooled page, with nothing of its last document left: no script of it
 * running, nothing stored, no cookies, no history, no window.name, one frame.
 *
 * Two ways there. freshWindow navigates to an empty window and wipes what the old document left
 * once it is gone (the document is written into the window afterwards). navigateStraight goes to
 * the next document itself in one navigation (about 20 ms of CPU less per document that runs
 * script), where the page's guard can answer its URL (file: URLs). There the order is the hard
 * part: the old document lives until the navigation commits, and the new one's script runs right
 * after the commit. So the old document's script is stopped when its render ends (stopScript), and
 * the new window is held before the first script of its document runs (a Debugger instrumentation
 * breakpoint, at a script of pdfrender's own that every new window of the page runs after
 * pdfrender's others and before its document's), wiped while it is held, checked, and let go. A
 * document that runs no script gets no script context, so is never held: nothing in it could read
 * what is wiped after its load.
 *
 * Freezing the page instead (Page.setWebLifecycleState) orders it just as well and also stops
 * workers, but hides and shows the page each time: measured 30 ms of CPU more per document.
 */
import type { CDPSession, Protocol } from 'puppeteer-core';
import type { Slot } from './page-pool.js';
import { storageOrigin, unlessScriptProhibited } from './page-state.js';

/** The guard answers a navigation with given HTML only for file: URLs (page-guard.ts's serveOnce). */
export const servable = (url: string): boolean => url.startsWith('file:');

// Pages whose document's script is stopped (stopScript) until their next navigation.
const stopped = new WeakSet<CDPSession>();
// Pages whose window may still hold the old document's window.name and sessionStorage: their
// document ran no script, so the wipe of navigateStraight never ran in it (settleWindow does).
const unwiped = new WeakSet<CDPSession>();
// Origins the old document of a page that could not go straight had, forgotten at its commit.
const leftOrigins = new WeakMap<CDPSession, ReadonlySet<string>>();

/** Wipe what the window keeps across documents, when a document that ran no script left it unwiped (see navigateStraight). */
export async function settleWindow(slot: Slot): Promise<void> {
  if (!unwiped.delete(slot.client)) return;
  await slot.client.send('Runtime.evaluate', { expression: windowWipe }).catch(unlessScriptProhibited);
}

/**
 * Stop the script of the page's document where it is (timers, handlers, pagehide handlers at the
 * next navigation) without replacing it: the next document's navigation does that. Its workers run
 * on until then. False when the page cannot be held before a script (JavaScript off, no Debugger).
 */
export async function stopScript(slot: Slot): Promise<boolean> {
  if (!slot.state.debugging) return false;
  await slot.client.send('Emulation.setScriptExecutionDisabled', { value: true });
  stopped.add(slot.client);
  // Its script can add no history from here on; a navigation from the same URL then adds none either.
  await slot.client.send('Page.resetNavigationHistory');
  return true;
}

// Script again for the page's next window (the old document may run until the navigation commits,
// which the wipe after the commit accounts for).
async function allowScript(client: CDPSession): Promise<void> {
  if (!stopped.delete(client)) return;
  await client.send('Emulation.setScriptExecutionDisabled', { value: false });
}

/**
 * Navigate the page to a fresh window at `baseUrl` with nothing stored and no history, and check
 * that it got there. The navigation stops every script, timer, worker and pending navigation of the
 * old document; only then is what it stored wiped, so nothing can write after the wipe.
 */
export async function freshWindow(slot: Slot, baseUrl: string): Promise<void> {
  const { page, client, state } = slot;
  await allowScript(client);
  // A folder's URL would load Chromium's listing of it (costly for a folder of a thousand inputs,
  // and it runs script); the window only needs the URL, so the navigation is answered with nothing.
  if (servable(baseUrl)) slot.guard.serveOnce(baseUrl, '');
  await page.goto(baseUrl, { waitUntil: 'load', timeout: 0 });
  slot.printWorld = undefined; // went with the old window
  const origins = new Set([...state.origins, ...(leftOrigins.get(client) ?? [])]);
  leftOrigins.delete(client);
  unwiped.delete(client);
  await wipe(client, baseUrl, origins, { window: true });
  // Everything the page reported up to here was the old document or this reset; a round trip on the
  // same session (in wipe) makes sure all of it is in before it is forgotten.
  state.clear();
  if (page.url() !== baseUrl || page.frames().length > 1) throw new Error(`the page could not be reset to ${baseUrl}`);
}

/**
 * Navigate the page straight to `html` at `url` (a file: URL the guard serves it at), with what the
 * old document left wiped after the navigation commits and before the new window's first script
 * runs (and before it sends a request); a new page (in a new browser context: nothing to wipe) only
 * navigates. False, with the page's script stopped and nothing of the document run, when the page
 * could not be held there or the old document left history behind: the caller then takes
 * freshWindow and writes the document.
 */
export async function navigateStraight(slot: Slot, url: string, html: string): Promise<boolean> {
  const { client, state } = slot;
  const blank = state.blank;
  // From elsewhere the navigation would add to the history, which the renderer counts at the commit.
  if (!state.debugging || !servable(url) || (!blank && slot.page.url() !== url)) return false;
  // What the page reported before the commit was the old document's: forgotten there, its origins kept for the wipe.
  let origins: ReadonlySet<string> = new Set();
  const events = eventsOf(client, state.frameId, () => {
    origins = new Set(state.origins);
    state.clear();
  });
  // The window's own (window.name, sessionStorage, the renderer's copy of localStorage) is wiped by a
  // script of the new window, ahead of its document's (a held renderer runs no other).
  // Pauses are skipped otherwise (a `debugger;` statement would hold the document until its deadline).
  // Sent together: the session keeps their order.
  const [{ identifier }, , { breakpointId }] = await Promise.all([
    client.send('Page.addScriptToEvaluateOnNewDocument', { source: windowWipe }),
    client.send('Debugger.setSkipAllPauses', { skip: false }),
    client.send('Debugger.setInstrumentationBreakpoint', { instrumentation: 'beforeScriptExecution' }),
    allowScript(client),
  ]);
  let held = false;
  let loaderId: string | undefined;
  try {
    slot.guard.serveOnce(url, html);
    const navigated = await client.send('Page.navigate', { url, frameId: state.frameId });
    loaderId = navigated.loaderId;
    if (navigated.errorText || !loaderId)
      throw new Error(`the page could not be navigated to ${url}: ${navigated.errorText ?? 'no load'}`);
    // Page.navigate answers before the renderer commits; the old document is gone only at the commit.
    // Chromium makes a window's script context only for its first script: a document that runs none
    // loads without being held, and nothing in it could read what is wiped then.
    held = (await events.heldOrLoaded(loaderId)) === 'held';
    slot.printWorld = undefined; // went with the old window
    await client.send('Debugger.removeBreakpoint', { breakpointId });
    // The old document may have added history (a pushState in its pagehide handler, or before the
    // commit), which the renderer has already counted for the new one: then it is not let go on.
    const [{ entries }] = await Promise.all([
      client.send('Page.getNavigationHistory'),
      blank ? undefined : wipe(client, url, origins),
    ]);
    // The held renderer answers only what V8 does (Page.getFrameTree would wait for it to go on), so
    // where the page is comes from its commit (the old document's frames went with it).
    if (events.commit() !== `${loaderId} ${url}` || entries.length > (blank ? 2 : 1)) {
      await client.send('Emulation.setScriptExecutionDisabled', { value: true });
      stopped.add(client);
      leftOrigins.set(client, origins);
    } else if (!held && !blank) unwiped.add(client);
  } finally {
    // Resumed first (a held V8 would not take the next call); a `debugger;` statement of the document
    // before the skip is in is let go by the listener of eventsOf, which stays until the load.
    if (held) await client.send('Debugger.resume');
    else await client.send('Debugger.removeBreakpoint', { breakpointId }).catch(() => undefined);
    await client.send('Debugger.setSkipAllPauses', { skip: true });
  }
  try {
    if (!stopped.has(client)) await events.loaded(loaderId);
  } finally {
    events.stop();
    await client.send('Page.removeScriptToEvaluateOnNewDocument', { identifier });
  }
  return !stopped.has(client);
}

// What a window keeps across documents; opaque origins (about:blank) have no storage, hence the try.
const windowWipe = "window.name = ''; try { sessionStorage.clear(); localStorage.clear(); } catch {};";

/**
 * What the old document left, once it is gone. window.name, sessionStorage and the renderer's copy of
 * localStorage belong to the window, beyond what clearing by origin reaches (and a held renderer
 * would run the new document's first script before a message from the browser refreshed that copy).
 */
async function wipe(
  client: CDPSession,
  url: string,
  seen: ReadonlySet<string>,
  fresh?: { window: true },
): Promise<void> {
  // Read once the old document is gone, so a frame that navigated while it went is among them.
  const origins = new Set([...seen, storageOrigin(url)].filter((origin) => origin !== null));
  await Promise.all([
    // The window's own, after a navigation to an empty window (navigateStraight wipes them itself).
    // History would tell the next document how many came before it, and is how a bfcache entry comes back.
    fresh && client.send('Page.resetNavigationHistory'),
    // On pdfrender's own session: puppeteer's evaluate needs the Runtime domain, which is kept off.
    // With JavaScript off nothing could have set them, and Chromium refuses the call.
    fresh && client.send('Runtime.evaluate', { expression: windowWipe }).catch(unlessScriptProhibited),
    clearStorage(client, origins),
  ]);
  // Cookies come from any response; the session keeps order, so every event the old document's
  // requests sent before this are in.
  await client.send('Network.clearBrowserCookies');
}

/** Clear storage of every type (local, session, IndexedDB, Cache Storage, service workers) for `origins`. */
export async function clearStorage(client: CDPSession, origins: Iterable<string>): Promise<void> {
  await Promise.all(
    [...origins].map((origin) => client.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' })),
  );
}

// The main frame's commits and loads, and the Debugger's pauses, in the order the page sent them;
// `onCommit` runs at the first commit, before any later event is taken.
function eventsOf(client: CDPSession, frameId: string, onCommit: () => void) {
  const committed: string[] = [];
  const loaded = new Set<string>();
  let wake = () => undefined as void;
  let paused = false;
  const onNavigated = (event: Protocol.Page.FrameNavigatedEvent) => {
    if (event.frame.id !== frameId) return;
    if (committed.push(`${event.frame.loaderId} ${event.frame.url}`) === 1) onCommit();
  };
  const onLifecycle = (event: Protocol.Page.LifecycleEventEvent) => {
    if (event.frameId === frameId && event.name === 'load') loaded.add(event.loaderId);
    wake();
  };
  // Held at the window's wipe (navigateStraight); a pause before it is the old document's (a new
  // script of its own, before the commit) or one of pdfrender's own scripts for the new window.
  const onPaused = () => {
    if (committed.length > 0 && !paused) paused = true;
    else void client.send('Debugger.resume').catch(() => undefined);
    wake();
  };
  client.on('Page.frameNavigated', onNavigated);
  client.on('Page.lifecycleEvent', onLifecycle);
  client.on('Debugger.paused', onPaused);
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return {
    /** Held before the window's wipe after the main frame's first commit, or that navigation loaded first. */
    async heldOrLoaded(loaderId: string): Promise<'held' | 'loaded'> {
      await until(() => paused || loaded.has(loaderId));
      return paused ? 'held' : 'loaded';
    },
    loaded: (loaderId: string) => until(() => loaded.has(loaderId)),
    /** The loader and URL of the main frame's one commit so far, if there was exactly one. */
    commit: () => (committed.length === 1 ? committed[0] : undefined),
    stop() {
      client.off('Page.frameNavigated', onNavigated);
      client.off('Page.lifecycleEvent', onLifecycle);
      client.off('Debugger.paused', onPaused);
    },
  };
}
