/**
 * The document's script errors for its report: uncaught exceptions, unhandled promise rejections
 * and console.error calls, counted, the first ten kept as a line each, and only ever the current
 * document's.
 *
 * They are caught in the page and never cross the DevTools pipe, which every render shares. The
 * Runtime and Console domains would send every console call's arguments by value (a 64 MB
 * console.log arrives whole; unneeded-commands.ts), and so would the Debugger's pauses on
 * exceptions, each with its exception: tried, two thrown 256 MB strings kept the browser from
 * answering its watchdog (console-flood.test.ts). So a hook installed in every new window before its
 * document's script (as window.print and window.open are, page-pool.ts) listens for errors and
 * rejections and wraps console.error, keeping a bounded line of each. Writing a document into the
 * window (document.open) drops a window's listeners; an observer of the document, which
 * document.open keeps, sets them again when the new document's first node goes in, before its first
 * script runs. The hook is read after the print, from the main world, and only from a document that
 * ran script: one that ran none cannot have erred, and one that did gets a fresh window afterwards
 * anyway, so the read taints nothing and nothing of one document's errors reaches the next.
 */
import type { CDPSession } from 'puppeteer-core';
import { reportBounds, type RenderReport } from './render-report.js';

type ScriptErrors = RenderReport['scriptErrors'];
type Message = ScriptErrors['messages'][number];

/** First line of a message, bounded. */
const firstLine = (text: string) => text.split('\n', 1)[0]!.slice(0, reportBounds.messageChars);

// The key the hook keeps its reader under: a registered symbol, which a document can find, but
// only to read (or lie about) its own errors, in a window that is replaced after it.
const readerKey = 'pdfrender.scriptErrors';

/**
 * Installed in every new window before its document's script (page.evaluateOnNewDocument): counts
 * the document's uncaught errors, unhandled rejections and console.error calls, and keeps a line of
 * the first `keep`, each at most `chars` long (cut before anything else is done with it).
 */
export function scriptErrorHook(key: string, keep: number, chars: number): void {
  const state = { count: 0, messages: [] as Array<{ kind: string; message: string }> };
  const text = (value: unknown) => {
    try {
      // A string is cut before it is split: a thrown 256 MB string is not scanned whole.
      return (typeof value === 'string' ? value.slice(0, chars * 4) : String(value).slice(0, chars * 4))
        .split('\n', 1)[0]!
        .slice(0, chars);
    } catch {
      return '[a value that cannot be printed]';
    }
  };
  const note = (kind: string, message: () => string) => {
    state.count += 1;
    if (state.messages.length < keep) state.messages.push({ kind, message: message() });
  };
  // Uncaught errors only: a resource that fails to load fires a plain Event named error, at its element.
  const onError = (event: Event) => {
    if (event instanceof ErrorEvent)
      note('exception', () => text(event.message || (event.error as unknown) || 'an error'));
  };
  const onRejection = (event: PromiseRejectionEvent) =>
    note(
      'exception',
      () => `Unhandled rejection: ${text(event.reason instanceof Error ? event.reason.message : event.reason)}`,
    );
  const arm = () => {
    // The same listener added again is not added twice.
    addEventListener('error', onError);
    addEventListener('unhandledrejection', onRejection);
  };
  arm();
  // A new document written into the window: listen again, and count its errors from nothing.
  new MutationObserver(() => {
    arm();
    state.count = 0;
    state.messages = [];
  }).observe(document, { childList: true });
  const original = console.error;
  console.error = function error(this: unknown, ...args: unknown[]) {
    note('console.error', () => args.slice(0, 5).map(text).join(' ').slice(0, chars));
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

/** The arguments scriptErrorHook is installed with. */
export const scriptErrorHookArgs = [readerKey, reportBounds.scriptMessages, reportBounds.messageChars] as const;

// Read in the main world; whatever the document made of the reader, the answer is a bounded string.
const readScriptErrors = `(() => { try {
  const take = window[Symbol.for(${JSON.stringify(readerKey)})];
  return typeof take === 'function' ? JSON.stringify(take()).slice(0, 20000) : null;
} catch { return null; } })()`;

const none: ScriptErrors = { count: 0, more: false, messages: [] };

/** The script errors of the page's document; nothing for a document that ran no script. */
export async function scriptErrors(client: CDPSession, scripted: boolean): Promise<ScriptErrors> {
  if (!scripted) return none;
  const answer = await client
    .send('Runtime.evaluate', { expression: readScriptErrors, returnByValue: true })
    .catch(() => undefined);
  const value: unknown = answer?.result.value;
  if (typeof value !== 'string') return none;
  try {
    const parsed = JSON.parse(value) as { count?: unknown; messages?: unknown };
    const count = typeof parsed.count === 'number' && parsed.count >= 0 ? Math.floor(parsed.count) : 0;
    const messages = (Array.isArray(parsed.messages) ? (parsed.messages as unknown[]) : [])
      .filter(
        (entry): entry is Message =>
          typeof entry === 'object' &&
          entry !== null &&
          ['exception', 'console.error'].includes((entry as Message).kind) &&
          typeof (entry as Message).message === 'string',
      )
      .slice(0, reportBounds.scriptMessages)
      .map(({ kind, message }) => ({ kind, message: firstLine(message) }));
    return { count: Math.max(count, messages.length), more: count > messages.length, messages };
  } catch {
    return none;
  }
}
