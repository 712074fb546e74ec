/**
 * The DevTools connection puppeteer talks through, with the Runtime domain never enabled on any
 * target. Puppeteer enables it on every page, frame and worker, only to track execution contexts
 * for its evaluate(), which pdfrender does not use. Enabled, it sends every console call's
 * arguments (Runtime.consoleAPICalled) and every uncaught exception (Runtime.exceptionThrown) by
 * value: a document that logs a 256 MB string four times pushed a gigabyte through the browser
 * process and the pipe, and the browser left its watchdog's pings unanswered for up to 5 s (issue
 * 27 §3). Runtime.evaluate and callFunctionOn still work without it, on pdfrender's own sessions.
 */
import type { ConnectionTransport } from 'puppeteer-core';

// Puppeteer writes `method` first (Connection._rawSend), so a prefix tells the command without parsing
// every message (some carry a whole document or file).
const runtimeEnable = '{"method":"Runtime.enable"';

/** `transport`, with Runtime.enable answered here (as an empty success) instead of reaching the browser. */
export function withoutRuntimeEvents(transport: ConnectionTransport): ConnectionTransport {
  const filtered: ConnectionTransport = {
    send(message) {
      if (!message.startsWith(runtimeEnable)) return transport.send(message);
      const { id, sessionId } = JSON.parse(message) as { id: number; sessionId?: string };
      // Answered as the browser would, later than the send: puppeteer registers its callback first.
      setImmediate(() => filtered.onmessage?.(JSON.stringify({ id, sessionId, result: {} })));
    },
    close: () => transport.close(),
  };
  transport.onmessage = (message) => filtered.onmessage?.(message);
  transport.onclose = () => filtered.onclose?.();
  return filtered;
}
