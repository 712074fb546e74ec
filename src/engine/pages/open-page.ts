/**
 * Open a pooled page whose animation frames run only when asked for (see frame-gate.ts). Puppeteer's
 * newPage() cannot ask for that, so the target is created with DevTools' own Target.createTarget,
 * as newPage() does, and puppeteer's Page for it is taken once puppeteer has attached.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';

const sessions = new WeakMap<Browser, Promise<CDPSession>>();

/**
 * A new page in `context` (which must hold none yet) with BeginFrameControl where the browser has it
 * (the headless shell), and a DevTools session of pdfrender's own on it. The session is attached
 * while puppeteer sets up its Page (which waits for the page's renderer to start), not after.
 */
export async function openControlledPage(
  browser: Browser,
  context: BrowserContext,
): Promise<{ page: Page; client: CDPSession }> {
  let session = sessions.get(browser);
  if (!session) {
    session = browser.target().createCDPSession();
    sessions.set(browser, session);
    session.catch(() => sessions.delete(browser));
  }
  const stop = new AbortController();
  // The context is new and this is its one page, so the first page target in it is ours.
  const created = browser.waitForTarget((target) => target.type() === 'page' && target.browserContext() === context, {
    timeout: 0,
    signal: stop.signal,
  });
  try {
    // The full browser ignores enableBeginFrameControl and runs frames by itself, which is what it did before.
    await (
      await session
    ).send('Target.createTarget', { url: 'about:blank', browserContextId: context.id, enableBeginFrameControl: true });
    const target = await created;
    const client = target.createCDPSession();
    client.catch(() => undefined); // awaited below, unless the page failed first
    const page = await target.page();
    if (!page) throw new Error('the browser opened no page for the document');
    return { page, client: await client };
  } finally {
    stop.abort();
    created.catch(() => undefined);
  }
}
