/**
 * Animation frames on demand. Pooled pages are opened with their frames under DevTools' control
 * (the headless shell's BeginFrameControl), so Chromium never lays out, paints, rasterises and
 * composites a document for a screen nobody looks at: about a fifth of the CPU of a render
 * (measured 74 -> 58 ms per invoice, with identical PDFs). printToPDF lays the document out for
 * paper by itself and needs no frame.
 *
 * What a frame is still needed for is the document's own script: requestAnimationFrame callbacks
 * and IntersectionObserver / ResizeObserver notifications run only in a frame. A page whose
 * document ran script is given one frame before it prints (see print-pdf.ts).
 *
 * The headless shell's display compositor is shared by every page of a browser, and two frames in
 * flight at once crash it (measured: "Got overlapping IssueExternalBeginFrame", the GPU process
 * exits and pages close under their renders). So frames go one at a time per browser, through
 * this gate. A frame whose renderer is stuck in a script never answers, yet its compositor part
 * ends within milliseconds (measured: another page's frame 1 ms after a stuck one was fine), so the
 * gate is held until the answer or `holdMs`, whichever comes first: a stuck document delays other
 * documents' frames by at most that, never for its whole deadline.
 */
import type { CDPSession } from 'puppeteer-core';

/** The longest one page's frame keeps the others waiting. */
const holdMs = 500;

export class FrameGate {
  private last: Promise<void> = Promise.resolve();
  /** False once the browser turned out to run frames by itself (the full browser has no BeginFrameControl). */
  private controlled = true;

  /** Run one animation frame of `client`'s page, after every frame asked for before it. */
  frame(client: CDPSession): Promise<void> {
    if (!this.controlled) return Promise.resolve();
    const answered = this.last.then(() =>
      client.send('HeadlessExperimental.beginFrame', { noDisplayUpdates: true }).then(
        () => undefined,
        (error: unknown) => {
          // The full browser has no such command; its pages run frames of their own, so none is needed.
          if (error instanceof Error && /wasn't found/.test(error.message)) this.controlled = false;
          else throw error;
        },
      ),
    );
    let timer: NodeJS.Timeout | undefined;
    const released = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, holdMs);
      timer.unref();
    });
    this.last = Promise.race([answered.catch(() => undefined), released]).finally(() => clearTimeout(timer));
    return answered;
  }
}

const gates = new WeakMap<object, FrameGate>();

/** The one gate of `browser`, made on first use. */
export function frameGateOf(browser: object): FrameGate {
  let gate = gates.get(browser);
  if (!gate) gates.set(browser, (gate = new FrameGate()));
  return gate;
}
