/**
 * A deadline for one render: an AbortSignal that fires when time is up, with the reason as a
 * RENDER_PDF_FAILED error, so every step of the render can race against the same clock.
 */
import { PdfRenderError } from '../errors.js';

/** Node's longest timer (about 24.8 days); a longer one would fire at once, so longer deadlines wait this long. */
const longestTimerMs = 2 ** 31 - 1;

/**
 * An AbortSignal that aborts after `ms` with a readable error (the render's deadline unless `reason`
 * says otherwise: the render's deadline is the document's fault, another is not); `clear` stops the timer.
 */
export function deadlineSignal(ms: number, reason?: string): { signal: AbortSignal; clear: () => void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => {
      controller.abort(
        new PdfRenderError(
          'RENDER_PDF_FAILED',
          reason ?? `the document did not finish rendering within the ${formatSeconds(ms)} deadline`,
          { documentFault: reason === undefined },
        ),
      );
    },
    Math.min(ms, longestTimerMs),
  );
  timer.unref?.();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
