/**
 * What a render does when its whole browser went away under it (crashed, or killed as hung). Any
 * document in flight then could have been the cause, so each is tried once more on the next
 * browser, and those second tries run one at a time: when the browser goes away again during one,
 * that document is the one to blame (issue 27 §3). It fails, saying so, and is not tried again,
 * while every other render that was in flight (a first try, or a second waiting its turn) goes on.
 * The wait costs nothing until a browser goes away, which is rare.
 */
import { PdfRenderError } from '../errors.js';
import { raceAbort } from '../race.js';
import { BrowserGone } from './browser/browser-gone.js';

/** Runs a render's attempt, and once more (one such at a time) if the browser went away under it. */
export type RetryAfterGone = <T>(attempt: () => Promise<T>, signal: AbortSignal) => Promise<T>;

/** One engine's retries: second tries wait for each other, never for first tries. */
export function retryAfterGone(): RetryAfterGone {
  let last: Promise<void> = Promise.resolve();
  return async (attempt, signal) => {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof BrowserGone) || signal.aborted) throw error;
    }
    const before = last;
    let done!: () => void;
    last = before.then(() => new Promise<void>((resolve) => (done = resolve)));
    try {
      await raceAbort(before, signal);
      return await attempt();
    } catch (error) {
      if (!(error instanceof BrowserGone) || signal.aborted) throw error;
      throw new PdfRenderError(
        'RENDER_PDF_FAILED',
        'the browser went away twice while rendering this document (it crashed, or was killed for not answering), the second time during the retry of this document; it is not tried again',
        { cause: error.cause },
      );
    } finally {
      // Set once `before` has settled; a try given up while waiting lets the next one go when its turn comes.
      void before.then(() => done());
    }
  };
}
