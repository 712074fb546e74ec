/**
 * The DevTools connection puppeteer talks through, with the commands pdfrender never needs answered
 * here instead of reaching the browser.
 *
 * The Runtime domain is never enabled on any target. Puppeteer enables it on every page, frame and
 * worker, only to track execution contexts for its evaluate(), which pdfrender does not use.
 * Enabled, it sends every console call's arguments (Runtime.consoleAPICalled) and every uncaught
 * exception (Runtime.exceptionThrown) by value: a document that logs a 256 MB string four times
 * pushed a gigabyte through the browser process and the pipe, and the browser left its watchdog's
 * pings unanswered for up to 5 s (issue 27 §3). Runtime.evaluate and callFunctionOn still work
 * without it, on pdfrender's own sessions.
 *
 * The rest is what puppeteer's Page sets up for features a print does not use, sent for every new
 * page before its first navigation (issue 31 §2): Performance metrics (page.metrics()), the Log
 * domain (browser-side console entries), WebMCP, and puppeteer's own isolated world, which it
 * creates in every frame of every document for its evaluate() and so is of no use with the
 * Runtime domain off. (Audits and the default viewport are switched off by puppeteer's own
 * connect options, see launch.ts.) So puppeteer's evaluate-based calls (page.evaluate, $,
 * waitForSelector, content, title) must never be used on pdfrender's pages: they would wait for a
 * world that never comes. Use inPrintWorld (pages/print-pdf.ts).
 */
import type { ConnectionTransport } from 'puppeteer-core';

// Puppeteer writes `method` first, then `params` (Connection._rawSend), so a prefix tells the
// command without parsing every message (some carry a whole document or file).
const utilityWorld = '"worldName":"__puppeteer_utility_world__';
const answered: Array<{ prefix: string; also?: string; result: object }> = [
  { prefix: '{"method":"Runtime.enable"', result: {} },
  { prefix: '{"method":"Performance.enable"', result: {} },
  { prefix: '{"method":"Log.enable"', result: {} },
  { prefix: '{"method":"WebMCP.enable"', result: {} },
  // Puppeteer's utility world: a script per new document, and the world made at once in each frame.
  {
    prefix: `{"method":"Page.addScriptToEvaluateOnNewDocument","params":{"source":"//# sourceURL=pptr:internal",${utilityWorld}`,
    result: { identifier: '' },
  },
  { prefix: '{"method":"Page.createIsolatedWorld"', also: utilityWorld, result: { executionContextId: 0 } },
];

/** The result to answer `message` with here, or undefined when it goes to the browser. */
function answerOf(message: string): object | undefined {
  for (const { prefix, also, result } of answered)
    if (message.startsWith(prefix) && (also === undefined || message.includes(also))) return result;
  return undefined;
}

/** `transport`, with the commands pdfrender never needs answered here (as the browser would) instead of reaching the browser. */
export function withoutUnneededCommands(transport: ConnectionTransport): ConnectionTransport {
  const filtered: ConnectionTransport = {
    send(message) {
      const result = answerOf(message);
      if (result === undefined) return transport.send(message);
      const { id, sessionId } = JSON.parse(message) as { id: number; sessionId?: string };
      // Answered as the browser would, later than the send: puppeteer registers its callback first.
      setImmediate(() => filtered.onmessage?.(JSON.stringify({ id, sessionId, result })));
    },
    close: () => transport.close(),
  };
  transport.onmessage = (message) => filtered.onmessage?.(message);
  transport.onclose = () => filtered.onclose?.();
  return filtered;
}
