/**
 * Open a pooled page whose animation frames run only when asked for (see frame-gate.ts). Puppeteer's
 * newPage() cannot ask for that, so the target is created with DevTools' own Target.createTarget,
 * as newPage() does, and puppeteer's Page for it is taken once puppeteer has attached.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'puppeteer-core';

const sessions = new WeakMap<Browser, Promise<CDPSession>>();

/**
 * A new page in `context` (which must hold none yet) with BeginFrameControl where the browser has it
 * (the headless shell), and the DevTools session pdfrender drives it with: puppeteer's own session
 * on the page. A second session of pdfrender's own had every Page event (a navigation's lifecycle,
 * frame and load events) sent, and read, twice: a cold letter read 117 messages, now 91.
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
    const page = await (await created).page();
    if (!page) throw new Error('the browser opened no page for the document');
    // Its session is internal to puppeteer's CdpPage (as PipeTransport is, launch.ts), not its API.
    return { page, client: (page as Page & { _client(): CDPSession })._client() };
  } finally {
    stop.abort();
    created.catch(() => undefined);
  }
}
