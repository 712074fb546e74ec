/**
 * The store's own ceiling: `instances` simulated servers (store-instance.mjs, one worker thread
 * each, so their client work runs in parallel as separate processes' would) pushing `jobs` async
 * jobs through one shared store, timed from the start signal to the last webhook recorded.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

/** A run stuck this long without a delivery is stopped and reported as failed, not waited on for ever. */
const stallMs = 60_000;

/**
 * Resolves to { instances, jobs, delivered, errors, seconds, perSecond }; throws when the jobs were
 * not all delivered exactly once (a store that loses or doubles events has no throughput to report).
 * `target` is { backend: 'postgres', url } or { backend: 'sqlite', dataDir } (already migrated).
 * `watch`, when given, is started just before the jobs are (async () => ({ stop: async () => figures }))
 * and stopped once they are delivered; its figures come back as `watched`.
 */
export async function storeLoad({ root, target, instances, jobs, loops, producers, watch }) {
  const shares = Array.from(
    { length: instances },
    (_, i) => Math.floor(jobs / instances) + (i < jobs % instances ? 1 : 0),
  );
  const workers = shares.map(
    (enqueue) =>
      new Worker(join(root, 'bench/lib/store-instance.mjs'), {
        workerData: { root, ...target, enqueue, producers, loops },
      }),
  );
  const counts = workers.map(() => ({ delivered: 0, errors: 0 }));
  const total = (key) => counts.reduce((sum, c) => sum + c[key], 0);
  let started;
  let finished;
  let watching;
  let lastProgress = performance.now();
  const closed = workers.map(
    (worker, i) =>
      new Promise((resolve, reject) => {
        worker.on('message', (message) => {
          if (message.delivered !== undefined) {
            counts[i] = message;
            lastProgress = performance.now();
            if (finished === undefined && total('delivered') >= jobs) {
              finished = performance.now();
              for (const w of workers) w.postMessage('stop');
            }
          }
          if (message.closed) resolve();
        });
        worker.on('error', reject);
        worker.on('exit', (code) =>
          code === 0 ? resolve() : reject(new Error(`a simulated instance exited ${code}`)),
        );
      }),
  );
  try {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise((resolve, reject) => {
            worker.on('message', (message) => message.ready && resolve());
            worker.on('error', reject);
          }),
      ),
    );
    watching = await watch?.();
    started = performance.now();
    lastProgress = started;
    for (const worker of workers) worker.postMessage('go');
    const watchdog = setInterval(() => {
      if (finished === undefined && performance.now() - lastProgress > stallMs) {
        finished = performance.now();
        for (const w of workers) w.postMessage('stop');
      }
    }, 1_000);
    await Promise.all(closed).finally(() => clearInterval(watchdog));
  } finally {
    await Promise.all(workers.map((worker) => worker.terminate()));
  }
  const watched = await watching?.stop();
  const delivered = total('delivered');
  const errors = total('errors');
  if (delivered !== jobs) {
    const last = counts.find((c) => c.lastError)?.lastError;
    throw new Error(`${delivered} of ${jobs} jobs delivered (${errors} errors${last ? `, last: ${last}` : ''})`);
  }
  const seconds = (finished - started) / 1000;
  return { instances, jobs, delivered, errors, seconds, perSecond: jobs / seconds, watched };
}
