/**
 * The document's script errors for its report: uncaught exceptions (and unhandled promise
 * rejections) and console.error calls, counted and truncated, and only ever the current
 * document's.
 *
 * The Runtime domain stays off (runtime-events-off.ts: it sends every console call's arguments by
 * value) and so does the Console domain, which does the same (a 64 MB console.log arrives whole).
 * - Exceptions: the Debugger, which the page's state already needs (page-state.ts), pauses on each
 *   uncaught one; the pause names the exception and is resumed at once. Breakpoints are deactivated
 *   instead of every pause skipped, so a `debugger;` statement still stops nothing. After 20 in one
 *   document it stops pausing, so a document throwing in a loop costs a round trip 20 times, not forever.
 * - console.error: a wrapper installed in every new window before the document's own script (as
 *   window.print and window.open are, page-pool.ts) counts the calls and keeps the first lines. It is
 *   read after the print, from the main world, and only from a document that ran script: a document
 *   that ran none cannot have called it, and one that did gets a fresh window afterwards anyway, so
 *   the read taints nothing and nothing of one document's errors reaches the next.
 */
import type { CDPSession } from 'puppeteer-core';
import { oversizedException } from '../browser/capped-messages.js';
import { reportBounds, type RenderReport } from './render-report.js';
import { unlessScriptProhibited } from '../pages/page-state.js';

type ScriptErrors = RenderReport['scriptErrors'];
type Message = ScriptErrors['messages'][number];

/** The exceptions of the page's current document, as the Debugger reports them. */
export interface ExceptionLog {
  /** Start counting for a new document. */
  begin(): void;
  /** The document's exceptions so far. */
  seen(): { count: number; more: boolean; messages: Message[] };
}

/** An exception this long (its text) stops the pauses for the rest of its document. */
const largeException = 64 * 1024;

/** First line of a message, bounded. */
const firstLine = (text: string) => text.split('\n', 1)[0]!.slice(0, reportBounds.messageChars);

/** Pause on the page's uncaught exceptions and keep them per document. */
export async function watchExceptions(client: CDPSession): Promise<ExceptionLog> {
  let count = 0;
  let messages: Message[] = [];
  let pausing = true;
  // Pausing stopped for this document: more may have happened than were counted.
  let stopped = false;
  const pauseOn = (state: 'uncaught' | 'none') =>
    client.send('Debugger.setPauseOnExceptions', { state }).catch(unlessDebuggerOff);
  client.on(
    'Debugger.paused',
    (event: { reason: string; data?: { description?: string; value?: unknown; className?: string } }) => {
      // Whatever stopped the page, it goes on at once: after pausing is turned off where it must be,
      // which the page takes before it runs on (the session keeps order), so its next throw does not pause.
      const resume = () => void client.send('Debugger.resume').catch(() => undefined);
      // A pause that comes after pausing was stopped (the page may run on before it takes the change) is not counted.
      if ((event.reason !== 'exception' && event.reason !== 'promiseRejection') || stopped) return resume();
      count += 1;
      const data = event.data ?? {};
      const text =
        data.description ?? (data.value !== undefined ? String(data.value) : (data.className ?? 'an exception'));
      if (messages.length < reportBounds.scriptMessages) messages.push({ kind: 'exception', message: firstLine(text) });
      // Every pause brings its exception whole: after 20 in a document, or one large one (a thrown
      // string of megabytes), it stops pausing, so a document cannot push its errors through the
      // browser's DevTools pipe, which every render shares, without bound.
      const large = text.length > largeException || text.startsWith(oversizedException);
      if ((count >= reportBounds.scriptErrors || large) && pausing) {
        pausing = false;
        stopped = true;
        void pauseOn('none').catch(() => undefined);
      }
      resume();
    },
  );
  await Promise.all([
    // With JavaScript off no script can throw.
    client.send('Debugger.setBreakpointsActive', { active: false }).catch(unlessDebuggerOff),
    pauseOn('uncaught'),
  ]);
  return {
    begin() {
      count = 0;
      messages = [];
      stopped = false;
      if (!pausing) {
        pausing = true;
        void pauseOn('uncaught').catch(() => undefined);
      }
    },
    seen: () => ({ count, more: stopped, messages }),
  };
}

// With JavaScript off Chromium refuses the Debugger (page-state.ts), and then every call to it.
function unlessDebuggerOff(error: unknown): void {
  if (error instanceof Error && /Debugger agent is not enabled/.test(error.message)) return;
  unlessScriptProhibited(error);
}

// The key the wrapper keeps its reader under: a registered symbol, which a document can find, but
// only to read (or lie about) its own errors, in a window that is replaced after it.
const readerKey = 'pdfrender.consoleErrors';

/**
 * Installed in every new window before its document's script (page.evaluateOnNewDocument): counts
 * console.error calls and keeps the first line of the first ten, for `consoleErrors`.
 */
export function consoleErrorHook(key: string, keep: number, chars: number): void {
  const original = console.error;
  const state = { count: 0, messages: [] as string[] };
  const text = (value: unknown) => {
    try {
      return String(value);
    } catch {
      return '[a value that cannot be printed]';
    }
  };
  console.error = function error(this: unknown, ...args: unknown[]) {
    state.count += 1;
    if (state.messages.length < keep)
      state.messages.push(args.slice(0, 5).map(text).join(' ').split('\n', 1)[0]!.slice(0, chars));
    return original.apply(this, args);
  };
  Object.defineProperty(window, Symbol.for(key), {
    value: () => {
      const taken = { count: state.count, messages: state.messages };
      state.count = 0;
      state.messages = [];
      return taken;
    },
  });
}

/** The arguments consoleErrorHook is installed with. */
export const consoleErrorHookArgs = [readerKey, reportBounds.scriptMessages, reportBounds.messageChars] as const;

// Read in the main world; whatever the document made of the reader, the answer is a bounded string.
const readConsoleErrors = `(() => { try {
  const take = window[Symbol.for(${JSON.stringify(readerKey)})];
  return typeof take === 'function' ? JSON.stringify(take()).slice(0, 20000) : null;
} catch { return null; } })()`;

/** The console.error calls of the page's document; nothing for a document that ran no script. */
export async function consoleErrors(
  client: CDPSession,
  scripted: boolean,
): Promise<{ count: number; messages: Message[] }> {
  const none = { count: 0, messages: [] };
  if (!scripted) return none;
  const answer = await client
    .send('Runtime.evaluate', { expression: readConsoleErrors, returnByValue: true })
    .catch(() => undefined);
  const value: unknown = answer?.result.value;
  if (typeof value !== 'string') return none;
  try {
    const parsed = JSON.parse(value) as { count?: unknown; messages?: unknown };
    const count = typeof parsed.count === 'number' && parsed.count >= 0 ? Math.floor(parsed.count) : 0;
    const messages = Array.isArray(parsed.messages)
      ? parsed.messages
          .filter((message): message is string => typeof message === 'string')
          .slice(0, reportBounds.scriptMessages)
          .map((message) => ({ kind: 'console.error' as const, message: firstLine(message) }))
      : [];
    return { count, messages };
  } catch {
    return none;
  }
}

/** The exceptions and console errors of one document, as the report has them. */
export function scriptErrorsOf(
  exceptions: ReturnType<ExceptionLog['seen']>,
  console: { count: number; messages: Message[] },
): ScriptErrors {
  return {
    count: exceptions.count + console.count,
    more: exceptions.more,
    messages: [...exceptions.messages, ...console.messages].slice(0, reportBounds.scriptMessages),
  };
}
