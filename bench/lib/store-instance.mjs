/**
 * One simulated `pdfrender serve` instance for the scale-out section, run as a worker thread: its
 * own connections to the shared store (a pool on PostgreSQL, a database handle on SQLite) and the
 * store calls a server makes per async job, with no Chromium: producers enqueue, worker loops
 * claim, save a small PDF's bytes and row, and complete (which writes the webhook delivery in the
 * same transaction), and one sender claims due deliveries, reads their endpoint and records them
 * delivered. So the figure is the store's ceiling, not a browser's.
 *
 * workerData: { root, backend: 'postgres' | 'sqlite', url, dataDir, enqueue (this instance's share),
 * producers, loops }. Messages out: { ready }, { delivered, errors } as deliveries land, { closed }.
 * Messages in: 'go', 'stop'.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { parentPort, threadId, workerData } from 'node:worker_threads';

const { root, backend, url, dataDir, enqueue: share, producers, loops } = workerData;
const dist = (path) => import(pathToFileURL(join(root, 'dist', path)).href);
const { storeWriter } = await dist('store/store-writer.js');
const { retryingStore } = await dist('store/retrying-store.js');
const { fileStore } = await dist('store/files/file-store.js');
const { webhookEvent } = await dist('server/api/job-event.js');

/** The store and blobs of this instance, opened the way open-backend.ts opens them for serve. */
async function openInstance() {
  if (backend === 'postgres') {
    const { postgresPool, postgresStore } = await dist('store/postgres/postgres-store.js');
    const { postgresBlobs } = await dist('store/postgres/blobs.js');
    const pool = postgresPool(url);
    return { store: postgresStore(pool, webhookEvent), blobs: postgresBlobs(pool) };
  }
  const { openDb } = await dist('store/sqlite/open-db.js');
  const { sqliteStore } = await dist('store/sqlite/sqlite-store.js');
  const { diskBlobs } = await dist('store/files/disk-blobs.js');
  const db = openDb(join(dataDir, 'pdfrender.db'));
  // As serve does: a lock held by another instance is waited out by the writer, not the thread.
  db.pragma('busy_timeout = 0');
  return { store: sqliteStore(db, webhookEvent), blobs: diskBlobs(join(dataDir, 'files')) };
}

const opened = await openInstance();
// The server's own writer: DATABASE_BUSY is tried again (--busy-timeout's default 10 s), anything else
// thrown; every write of the store goes through it, as open-backend.ts builds it.
const write = storeWriter({ waitMs: 10_000 });
const store = retryingStore(opened.store, write);
const files = fileStore(store.fileIndex, opened.blobs, write);
await store.ping();

// About what Chromium writes for a one-line page; the bytes go where serve keeps them (the database, or the data dir's files/).
const pdf = new Uint8Array(8 * 1024).fill(0x25);
const request = { htmlContent: '<p>tiny</p>' };
const bounds = { maxQueue: 1e9, maxQueuePerCaller: 1e9, maxQueueBytes: 1e12, maxQueueBytesPerCaller: 1e12 };
const leaseMs = 60_000;
// As serve: an idle worker loop looks again after 1 s or when this instance queues a job, the
// sender after 0.5 s or when a job completes (so another instance's job waits for a poll, as it would).
const workerPollMs = 1_000;
const senderPollMs = 500;
const errorPauseMs = 5;

let stopped = false;
let delivered = 0;
let errors = 0;
let lastError;

/**
 * A wake-up call for sleepers: sleep(ms) ends after `ms` or at the next wake(), whichever is first.
 * A wake with nobody asleep (they were at the database) makes the next sleep end at once, so none is missed.
 */
function alarm() {
  let ring;
  let rang = new Promise((resolve) => (ring = resolve));
  let asleep = 0;
  let missed = false;
  return {
    async sleep(ms) {
      if (missed) return void (missed = false);
      asleep += 1;
      await Promise.race([rang, delay(ms, undefined, { ref: false })]);
      asleep -= 1;
    },
    wake() {
      missed = asleep === 0;
      ring();
      rang = new Promise((resolve) => (ring = resolve));
    },
  };
}
const workers = alarm();
const sender = alarm();
const report = () => parentPort.postMessage({ delivered, errors, lastError });
const failed = (error) => {
  errors += 1;
  lastError = String(error?.message ?? error);
};

let next = 0;
/** Enqueue this instance's share, as its HTTP handlers would: one job per identifier. */
async function produce() {
  while (!stopped && next < share) {
    const identifier = `t${threadId}-${next++}`;
    await store.queue
      .enqueue({
        caller: 'bench',
        identifier,
        priority: 0,
        request,
        baseUrl: 'http://127.0.0.1:3000',
        now: Date.now(),
        dedupeWindowMs: 60_000,
        bounds,
        maxAttempts: 3,
      })
      .then(workers.wake, failed);
  }
}

/** A render worker loop with the render left out: claim, keep the PDF, complete (writing the delivery). */
async function work(index) {
  const holder = `bench-${threadId}.${index}`;
  while (!stopped) {
    try {
      const job = await store.queue.claim(holder, Date.now(), leaseMs);
      if (!job) {
        await workers.sleep(workerPollMs);
        continue;
      }
      // No key's, as the bench's jobs are (their caller is no API key).
      const file = await files.save(pdf, 1, Date.now(), 3_600_000, '');
      await store.queue.complete(job.id, holder, Date.now(), { fileId: file.id, pages: 1, bytes: file.bytes });
      sender.wake();
    } catch (error) {
      failed(error);
      await delay(errorPauseMs);
    }
  }
}

/** The webhook sender: claim what is due (32 in flight at most, as serve), look up each endpoint, record the 2xx. */
async function send() {
  while (!stopped) {
    try {
      const due = await store.deliveries.claim(Date.now(), 32, 60_000, 32, {});
      if (due.length === 0) {
        await sender.sleep(senderPollMs);
        continue;
      }
      await Promise.all(
        due.map(async (delivery) => {
          await store.webhooks.get(delivery.endpointId);
          await store.deliveries.succeeded(delivery.id, 204, Date.now());
          delivered += 1;
        }),
      );
      report();
    } catch (error) {
      failed(error);
      report();
      await delay(errorPauseMs);
    }
  }
}

parentPort.on('message', async (message) => {
  if (message === 'go') {
    const running = [
      ...Array.from({ length: producers }, produce),
      ...Array.from({ length: loops }, (_, i) => work(i)),
      send(),
    ];
    await Promise.all(running);
    await store.close();
    parentPort.postMessage({ closed: true, delivered, errors, lastError });
  } else if (message === 'stop') {
    stopped = true;
    workers.wake();
    sender.wake();
  }
});
parentPort.postMessage({ ready: true });
