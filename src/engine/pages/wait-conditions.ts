/**
 * What a request may ask to wait for between its document's load event and the print: a visible
 * element, a truthy expression, a quiet network, a fixed delay. Each is checked from Node, a poll at
 * a time, so nothing of pdfrender's is left running in the page when the render ends early; and
 * each names itself in `pending` while it waits, so a deadline that runs out can say what it was
 * waiting for.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PdfRenderError } from '../../errors.js';
import type { RenderRequest } from '../../request.js';
import { waitExpressionScript } from '../../wait-expression.js';
import type { Slot } from './page-pool.js';
import { inPrintWorld } from './print-pdf.js';
import { inSpan } from '../../tracing/spans.js';

/** Time between two checks of a condition. */
const pollMs = 50;

/** Checks between two animation frames given while waiting (one frame every 250 ms). */
const checksPerFrame = 5;

/** How long the network must have been quiet for `waitForNetworkIdle`. */
export const networkIdleMs = 500;

/** Wait until every condition `request` gives holds; rejects when `signal` aborts. */
export async function waitForConditions(
  slot: Slot,
  request: RenderRequest,
  signal: AbortSignal,
  pending: Set<string>,
): Promise<void> {
  const waits: Array<Promise<void>> = [];
  const { waitForSelector: selector, waitForExpression: expression, waitDelay: delay } = request;
  if (delay)
    waits.push(named(pending, 'waitDelay', `waitDelay (${delay} ms)`, () => sleep(delay, undefined, { signal })));
  if (request.waitForNetworkIdle) {
    waits.push(
      named(pending, 'waitForNetworkIdle', `waitForNetworkIdle (no request in flight for ${networkIdleMs} ms)`, () =>
        slot.page.waitForNetworkIdle({ idleTime: networkIdleMs, timeout: 0, signal }),
      ),
    );
  }
  if (selector) {
    const check = `(() => {
      let element;
      try { element = document.querySelector(${JSON.stringify(selector)}); } catch { return 'invalid'; }
      if (!element) return false;
      const box = element.getBoundingClientRect();
      return getComputedStyle(element).visibility !== 'hidden' && (box.width > 0 || box.height > 0);
    })()`;
    waits.push(
      named(pending, 'waitForSelector', `waitForSelector ${quoted(selector)} (a visible element matching it)`, () =>
        until(slot, signal, async () => {
          const found = await inPrintWorld(slot, check);
          if (found === 'invalid')
            throw new PdfRenderError(
              'RENDER_PDF_FAILED',
              `waitForSelector ${quoted(selector)} is not a CSS selector the page accepts`,
              { documentFault: true },
            );
          return found === true;
        }),
      ),
    );
  }
  if (expression) {
    // In the page's own world, where its globals are; so the page counts as having run script. The
    // wrapper hands back a boolean, or a short account of a throw (wait-expression.ts), never the
    // expression's value.
    const wrapped = waitExpressionScript(expression);
    const waiting = `waitForExpression ${quoted(expression)} (to be truthy`;
    let label = `${waiting})`;
    // A throw (a global not set yet) is not an answer: it is tried again, as a false one is; while
    // the last check threw, the label says what, so a deadline that runs out tells it.
    const relabel = (next: string) => {
      pending.delete(label);
      pending.add((label = next));
    };
    const check = async () => {
      const { result } = await slot.client.send('Runtime.evaluate', {
        expression: wrapped,
        awaitPromise: true,
        returnByValue: true,
      });
      relabel(result.type === 'string' ? `${waiting}; it last threw ${JSON.stringify(result.value)})` : `${waiting})`);
      return result.value === true;
    };
    waits.push(
      inSpan('waitForExpression', async () => {
        pending.add(label);
        try {
          await until(slot, signal, check);
        } finally {
          pending.delete(label);
        }
      }),
    );
  }
  await Promise.all(waits);
}

// Runs `wait` in a span named for its field, with `label` in `pending` until it settles.
function named(pending: Set<string>, field: string, label: string, wait: () => Promise<void>): Promise<void> {
  return inSpan(field, async () => {
    pending.add(label);
    try {
      await wait();
    } finally {
      pending.delete(label);
    }
  });
}

// Checks `holds` until it does. A page that runs script gets an animation frame every few checks, so
// what it draws in requestAnimationFrame callbacks can appear (pooled pages draw no frames by
// themselves); not more often, since frames are taken one at a time for the whole browser.
async function until(slot: Slot, signal: AbortSignal, holds: () => Promise<boolean>): Promise<void> {
  for (let check = 0; ; check += 1) {
    signal.throwIfAborted();
    if (await holds()) return;
    if (slot.state.scripted && check % checksPerFrame === 0) await slot.frames.frame(slot.client);
    await sleep(pollMs, undefined, { signal });
  }
}

// A selector or expression in a message: enough to recognise it, not 10,000 characters in every job error.
const quoted = (text: string) => JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}...` : text);
