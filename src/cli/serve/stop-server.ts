/**
 * How `pdfrender serve` stops on SIGINT/SIGTERM, in one budget counted from the signal
 * (--shutdown-grace): from the signal on it takes no new request and no new async job; renders in
 * flight, sync and async alike, may finish within the grace; those still going when it runs out
 * end (a request answers 503 SHUTTING_DOWN, an async job goes back to the queue without spending
 * its attempt). What is left to do then is bounded, so the process exits shortly after the grace,
 * and an orchestrator's stop timeout sized to it never kills a render.
 */
import type { ServerType } from '@hono/node-server';
import { PdfRenderError } from '../../errors.js';
import type { Runtime } from '../../server/runtime.js';

/** How long each step after the grace may wait: answers reaching their clients, requests stuck elsewhere than a render. */
const afterGraceMs = 2_000;

const pause = () => new Promise((resolve) => setTimeout(resolve, 50));

/** Wait until `busy` is false or `until` (a Date.now() time) passes. */
async function waitWhile(busy: () => boolean, until: number): Promise<void> {
  while (busy() && Date.now() < until) await pause();
}

/** Stop `server` and the runtime's async workers by `graceEnds` (the signal has just come); the caller then closes the runtime. */
export async function stopServer(options: {
  server: ServerType;
  runtime: Runtime;
  /** When the grace runs out, a Date.now() time. */
  graceEnds: number;
  /** The app's (createApp's stopRenders): aborted when the grace runs out. */
  stopRenders: AbortController;
  say: (line: string) => void;
}): Promise<void> {
  const { server, runtime, stopRenders, graceEnds, say } = options;
  const { lifecycle } = runtime.deps;
  say('pdfrender: shutting down: no new requests or async jobs, waiting for renders in flight');
  lifecycle.draining = true;
  let asyncDone = false;
  void runtime
    .drain(stopRenders.signal, graceEnds)
    .catch((error: unknown) =>
      runtime.deps.events({ level: 'error', message: 'stopping the async workers failed', error }),
    )
    .finally(() => (asyncDone = true));
  let serverClosed = false;
  const closed = new Promise<void>((resolve) => server.close(() => resolve())).then(() => void (serverClosed = true));
  await waitWhile(() => lifecycle.inFlight > 0 || !asyncDone, graceEnds);
  if (lifecycle.inFlight > 0 || !asyncDone) {
    const stopping = [
      lifecycle.inFlight > 0 && `${lifecycle.inFlight} request(s) in flight (renders answer 503 SHUTTING_DOWN)`,
      !asyncDone && 'the async renders still going (their jobs go back to the queue)',
    ];
    say(`pdfrender: shutdown grace ran out; stopping ${stopping.filter(Boolean).join(' and ')}`);
    // One signal for the sync renders (they answer 503 rather than vanish) and the async ones (their
    // jobs go back), so both keep to the one budget.
    stopRenders.abort(
      new PdfRenderError('SHUTTING_DOWN', 'the server stopped before the document finished rendering; send it again', {
        retryAfter: 5,
      }),
    );
    // An aborted render answers at once; this only bounds a request stuck elsewhere (a body still
    // uploading). The async jobs go back meanwhile, within a bound of the workers' own.
    await waitWhile(() => lifecycle.inFlight > 0, Date.now() + afterGraceMs);
  }
  // A handled request leaves inFlight before Node has written its answer: close sockets as they go
  // idle, so every answer reaches its client, and cut the rest only after a bounded wait.
  const flushUntil = Date.now() + afterGraceMs;
  while (!serverClosed && Date.now() < flushUntil) {
    if ('closeIdleConnections' in server) server.closeIdleConnections();
    await pause();
  }
  if ('closeAllConnections' in server) server.closeAllConnections();
  await closed;
}
