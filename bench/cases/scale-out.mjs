/**
 * Scale-out: how many `pdfrender serve` instances one PostgreSQL carries. Two figures from one run
 * on one machine: the store's own ceiling (async jobs per second through enqueue, claim, file save,
 * complete and webhook delivery, with the render left out) for 1 to 3 simulated instances on a
 * throw-away PostgreSQL cluster, beside SQLite in a data dir as the reference; and the render
 * throughput of one real `pdfrender serve --database` instance on tiny documents. Their ratio is
 * the number of instances the database keeps up with.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alternate } from '../lib/alternate.mjs';
import { asyncLoad } from '../lib/async-load.mjs';
import { sampleLocks } from '../lib/lock-sampler.mjs';
import { startCluster } from '../lib/postgres.mjs';
import { addWebhook, startServer, startWebhookReceiver } from '../lib/server-process.mjs';
import { median } from '../lib/stats.mjs';
import { storeLoad } from '../lib/store-load.mjs';

/** Per simulated instance: worker loops (a render box with this many documents at once) and producers (requests arriving at it). */
const loops = 4;
const producers = 2;
/** The smallest document a user sends: what the render case renders, and what the store case's jobs carry. */
const tinyRequest = { htmlContent: '<!doctype html><html><body><p>Receipt 42: one line.</p></body></html>' };
/** Renders before the render case's clock starts: the engine opens its pages on first use. */
const renderWarmUp = 4;

/** A fresh, migrated store with one webhook endpoint (the receiver is never called: deliveries are recorded, not sent). */
async function freshTarget({ root, work, cluster, backend, name }) {
  const { openStore } = await import(pathToFileURL(join(root, 'dist/store/open-store.js')).href);
  const { webhookEvent } = await import(pathToFileURL(join(root, 'dist/server/api/job-event.js')).href);
  const dataDir = await mkdtemp(join(work, 'scale-'));
  await mkdir(join(dataDir, 'files'));
  const url = backend === 'postgres' ? await cluster.createDatabase(name) : undefined;
  const opened = await openStore({ dataDir, database: url, eventOf: webhookEvent });
  await opened.store.webhooks.add('http://127.0.0.1:9/hook', opened.now());
  await opened.close();
  return backend === 'postgres' ? { backend, url, dataDir } : { backend, dataDir };
}

/** One real `pdfrender serve --database` instance rendering tiny documents through render-async to a local receiver. */
async function renderThroughput({ root, work, cluster, jobs, log }) {
  const dataDir = await mkdtemp(join(work, 'scale-serve-'));
  const database = await cluster.createDatabase('bench_render');
  const receiver = await startWebhookReceiver();
  addWebhook({ root, dataDir, database, url: receiver.url });
  const server = await startServer({ root, dataDir, database });
  try {
    await asyncLoad({ url: server.url, receiver, request: tinyRequest, jobs: renderWarmUp, prefix: 'warm-up' });
    log(`scale-out: one pdfrender serve --database, ${jobs} tiny documents through render-async`);
    return await asyncLoad({ url: server.url, receiver, request: tinyRequest, jobs });
  } finally {
    await server.stop();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * Resolves to { jobs, loops, producers, store: { [case]: { backend, instances, runs, perSecond, locks, enqueueLock, error? } },
 * render: asyncLoad's result or { error }, ceiling, carried }.
 */
export async function scaleOut({ root, work, jobs, rounds, renderJobs, log }) {
  log('scale-out: starting a throw-away PostgreSQL cluster');
  const cluster = await startCluster();
  log(`scale-out: PostgreSQL on port ${cluster.port} in ${(cluster.startedInMs / 1000).toFixed(1)} s`);
  try {
    let made = 0;
    const storeCase = (backend, instances) => async () => {
      const target = await freshTarget({ root, work, cluster, backend, name: `bench_store_${made++}` });
      try {
        const watch = backend === 'postgres' ? () => sampleLocks(root, target.url) : undefined;
        const result = await storeLoad({ root, target, instances, jobs, loops, producers, watch });
        return { ...result, ms: result.seconds * 1000 };
      } finally {
        await rm(target.dataDir, { recursive: true, force: true });
      }
    };
    const specs = [];
    for (const backend of ['postgres', 'sqlite'])
      for (const instances of [1, 2, 3])
        specs.push({
          backend,
          instances,
          name: `${backend === 'postgres' ? 'PostgreSQL' : 'SQLite'}, ${instances} instance${instances > 1 ? 's' : ''}`,
        });
    log(
      `scale-out: the store alone, ${jobs} jobs per run, ${loops} worker loops and ${producers} producers per instance`,
    );
    const runs = await alternate(
      Object.fromEntries(specs.map((s) => [s.name, storeCase(s.backend, s.instances)])),
      rounds,
      log,
    );
    const store = Object.fromEntries(
      specs.map(({ name, backend, instances }) => {
        const r = runs[name];
        const enqueueLock = r.runs.map((run) => run.watched?.enqueue).filter(Boolean);
        return [
          name,
          {
            backend,
            instances,
            runs: r.runs.map((run) => run.perSecond),
            errors: r.runs.reduce((n, run) => n + run.errors, 0),
            perSecond: median(r.runs.map((run) => run.perSecond)),
            locks: r.runs.map((run) => run.watched),
            // The advisory lock every enqueue takes (dedupe and queue bounds across instances): how busy it was.
            enqueueLock: enqueueLock.length
              ? { held: median(enqueueLock.map((l) => l.held)), waiting: median(enqueueLock.map((l) => l.waiting)) }
              : undefined,
            error: r.error,
          },
        ];
      }),
    );

    let render;
    try {
      render = await renderThroughput({ root, work, cluster, jobs: renderJobs, log });
    } catch (error) {
      render = { error: String(error.message ?? error) };
      log(`scale-out: the render case failed: ${render.error}`);
    }
    // The database's ceiling is the best it sustained, whichever number of instances reached it.
    const ceiling = Math.max(
      0,
      ...Object.values(store)
        .filter((s) => s.backend === 'postgres' && s.perSecond)
        .map((s) => s.perSecond),
    );
    const carried =
      ceiling && render.perSecond && render.refused + render.failed === 0 ? ceiling / render.perSecond : undefined;
    return { jobs, loops, producers, store, render, ceiling: ceiling || undefined, carried };
  } finally {
    await cluster.stop();
  }
}
