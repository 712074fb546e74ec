/**
 * The commands pdfrender never needs (unneeded-commands.ts), as puppeteer's own Connection writes
 * them: answered on the connection, with the result the browser would give, and never sent to the
 * browser; every other command, pdfrender's own isolated world and scripts included, goes through.
 */
import type { ConnectionTransport } from 'puppeteer-core';
import { Connection } from 'puppeteer-core/internal/cdp/Connection.js';
import { UTILITY_WORLD_NAME } from 'puppeteer-core/internal/common/util.js';
import { describe, expect, it } from 'vitest';
import { withoutUnneededCommands } from '../src/engine/browser/unneeded-commands.js';

/** A browser stand-in that answers every command it gets with an empty result, and keeps their names. */
function fakeBrowser(): ConnectionTransport & { reached: string[]; attach(sessionId: string): void } {
  const transport = {
    reached: [] as string[],
    send(message: string) {
      const { id, method, sessionId } = JSON.parse(message) as { id: number; method: string; sessionId?: string };
      transport.reached.push(method);
      setImmediate(() => transport.onmessage?.(JSON.stringify({ id, sessionId, result: { fromBrowser: true } })));
    },
    close() {},
    onmessage: undefined as ((message: string) => void) | undefined,
    attach(sessionId: string) {
      transport.onmessage?.(
        JSON.stringify({
          method: 'Target.attachedToTarget',
          params: { sessionId, targetInfo: { targetId: 'T', type: 'page' }, waitingForDebugger: false },
        }),
      );
    },
  };
  return transport;
}

/** Puppeteer's Connection over the filter, and a page session on it as puppeteer makes one. */
async function pageSession() {
  const browser = fakeBrowser();
  const connection = new Connection('pipe:', withoutUnneededCommands(browser));
  browser.attach('S1');
  // The connection reads messages asynchronously; the session exists once the attach is read.
  await new Promise((resolve) => setImmediate(resolve));
  const session = connection.session('S1');
  if (!session) throw new Error('no session');
  return { browser, session };
}

describe('the commands a print does not need', () => {
  it("are answered without reaching the browser: Runtime, Performance, Log, WebMCP and puppeteer's utility world", async () => {
    const { browser, session } = await pageSession();
    const answers = await Promise.all([
      session.send('Runtime.enable'),
      session.send('Performance.enable'),
      session.send('Log.enable'),
      session.send('WebMCP.enable' as 'Log.enable'),
      session.send('Page.addScriptToEvaluateOnNewDocument', {
        source: '//# sourceURL=pptr:internal',
        worldName: UTILITY_WORLD_NAME,
      }),
      session.send('Page.createIsolatedWorld', {
        frameId: 'F1',
        worldName: UTILITY_WORLD_NAME,
        grantUniveralAccess: true,
      }),
    ]);
    expect(browser.reached).toEqual([]);
    expect(answers).toEqual([{}, {}, {}, {}, { identifier: '' }, { executionContextId: 0 }]);
  });

  it("lets the rest through: pdfrender's own world and scripts, and what puppeteer's page needs", async () => {
    const { browser, session } = await pageSession();
    const answers = await Promise.all([
      session.send('Page.createIsolatedWorld', { frameId: 'F1', worldName: 'pdfrender-print' }),
      session.send('Page.addScriptToEvaluateOnNewDocument', {
        source: '(() => { window.print = () => undefined; })()',
      }),
      session.send('Network.enable'),
      session.send('Page.enable'),
      session.send('Page.setLifecycleEventsEnabled', { enabled: true }),
      session.send('Runtime.evaluate', { expression: '1' }),
    ]);
    expect(browser.reached).toEqual([
      'Page.createIsolatedWorld',
      'Page.addScriptToEvaluateOnNewDocument',
      'Network.enable',
      'Page.enable',
      'Page.setLifecycleEventsEnabled',
      'Runtime.evaluate',
    ]);
    expect(answers.every((answer) => (answer as { fromBrowser?: boolean }).fromBrowser)).toBe(true);
  });
});
