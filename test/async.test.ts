/**
 * render-async end to end: a real server, real Chromium, real SQLite and a real local webhook
 * receiver; signatures are checked with the standardwebhooks package, as a receiver would.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { openDb } from '../src/store/sqlite/open-db.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A webhook receiver on an ephemeral port; answers each request with the next status in `statuses` (then 200). */
async function receiver(statuses: number[] = []) {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(statuses.shift() ?? 200).end();
      waiters.splice(0).forEach((wake) => wake());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    /** Wait until `count` requests have arrived. */
    async waitFor(count: number, timeoutMs = 30_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`only ${received.length} of ${count} webhook requests arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received.slice(0, count);
    },
    close: () => server.close(),
  };
}

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 1500 });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

/**
 * Move `server`'s clock on to `due` (a retry time the store wrote) and wake its workers and sender,
 * as their next poll would find it: the test waits for the retry, not for its delay.
 */
function skipTo(server: TestServer, due: number): void {
  server.clock.time += Math.max(0, due - server.clock.now());
  server.deps.wakeWorkers();
  server.deps.wakeSender();
}

/** The webhook deliveries of `jobId` as the store keeps them. */
const deliveriesOf = (server: TestServer, jobId: string) =>
  server.db
    .prepare(
      'SELECT endpoint_id, status, attempts, next_attempt_at, last_error FROM webhook_deliveries WHERE job_id = ? ORDER BY id',
    )
    .all(jobId) as Array<{
    endpoint_id: string;
    status: string;
    attempts: number;
    next_attempt_at: number;
    last_error: string | null;
  }>;

const post = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server.url}/api/pdfs/render-async`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('render-async', () => {
  it('queues, renders in the background, and POSTs a signed PDF_RENDERED event to every webhook', async () => {
    const [first, second] = [await receiver(), await receiver()];
    const server = await startServer({ rateLimit: 1 }, { engine }, { realClock: true });
    try {
      const endpoints = [
        await server.deps.webhooks.add(first.url, Date.now()),
        await server.deps.webhooks.add(second.url, Date.now()),
      ];
      const response = await post(server, {
        htmlContent: '<h1>Async hello</h1>',
        identifier: 'invoice-42',
        paperWidth: '210mm',
        paperHeight: '297mm',
      });
      expect(response.status).toBe(202);
      const queued = await response.json();
      expect(queued).toEqual({
        outcome: 'SUCCESS',
        identifier: 'invoice-42',
        jobId: expect.stringMatching(/^job_/),
        status: 'queued',
        statusUrl: `${server.url}/api/pdfs/jobs/${queued.jobId}`,
      });

      const [delivery] = await first.waitFor(1);
      const [copy] = await second.waitFor(1);
      const event = new Webhook(endpoints[0]!.secret).verify(delivery!.body, delivery!.headers) as {
        type: string;
        payload: Record<string, unknown>;
      };
      expect(event).toEqual({
        type: 'PDF_RENDERED',
        payload: {
          id: 'invoice-42',
          url: expect.stringMatching(`^${server.url}/api/pdfs/files/`),
          jobId: queued.jobId,
          pages: 1,
          bytes: expect.any(Number),
          report: expect.objectContaining({ resources: { blocked: [], failed: [], brokenImages: [] } }),
        },
      });
      expect(delivery!.headers.authorization).toBe(`Bearer ${endpoints[0]!.key}`);
      expect(delivery!.headers['user-agent']).toBe('RenderPdfIoHTTP/1 (compatible; pdfrender/0.0.0-test)');
      expect(new Webhook(endpoints[1]!.secret).verify(copy!.body, copy!.headers)).toEqual(event);

      const pdf = await readPdf(new Uint8Array(await (await fetch(String(event.payload.url))).arrayBuffer()));
      expect(pdf.pages[0]!.text).toBe('Async hello');
      expect(pdf.pages[0]!.width).toBeCloseTo(595.3, -1);

      const status = await (await fetch(queued.statusUrl)).json();
      expect(status).toMatchObject({
        outcome: 'SUCCESS',
        jobId: queued.jobId,
        identifier: 'invoice-42',
        status: 'succeeded',
        attempts: 1,
        fileUrl: event.payload.url,
        pages: 1,
      });

      // Async requests are never rate limited (this server allows one sync request a minute).
      for (let i = 0; i < 3; i += 1)
        expect((await post(server, { htmlContent: '<p>x</p>', identifier: `more-${i}` })).status).toBe(202);
    } finally {
      await server.close();
      first.close();
      second.close();
    }
  });

  it('answers 412 without a webhook, 422 for bad fields, 402 for a repeated identifier, 503 when the queue is full', async () => {
    const hook = await receiver();
    const server = await startServer({ maxQueue: 2 }, { engine }, { realClock: true });
    try {
      const none = await post(server, { htmlContent: '<p>x</p>', identifier: 'a' });
      expect(none.status).toBe(412);
      expect((await none.json()).outcome).toBe('WEBHOOK_NOT_CONFIGURED');
      await server.deps.webhooks.add(hook.url, Date.now());

      const invalid = await post(server, { htmlContent: '<p>x</p>', priority: 20 });
      expect(invalid.status).toBe(422);
      expect((await invalid.json()).errors).toEqual({
        identifier: ['is required'],
        priority: ['must be between -10 and 10 (got 20)'],
      });

      // A slow document (a second's wait before it prints) keeps the first job rendering while the queue fills.
      const slow = { htmlContent: '<p>slow</p>', waitDelay: 1000 };
      expect((await post(server, { ...slow, identifier: 'a' })).status).toBe(202);
      const duplicate = await post(server, { htmlContent: '<p>x</p>', identifier: 'a' });
      expect(duplicate.status).toBe(402);
      expect((await duplicate.json()).outcome).toBe('DUPLICATE_IDENTIFIER');
      expect((await post(server, { ...slow, identifier: 'b' })).status).toBe(202);
      const full = await post(server, { htmlContent: '<p>x</p>', identifier: 'c' });
      expect(full.status).toBe(503);
      expect(full.headers.get('retry-after')).toBe('30');
      expect((await full.json()).outcome).toBe('QUEUE_FULL');
      await hook.waitFor(2);
    } finally {
      await server.close();
      hook.close();
    }
  });

  it('accepts exactly one of two simultaneous requests with one identifier, answers the same request again with its job, and takes the identifier again after the window', async () => {
    const hook = await receiver();
    const server = await startServer({}, { engine });
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const statuses = await Promise.all(
        [0, 1].map(async (i) => (await post(server, { htmlContent: `<p>twin ${i}</p>`, identifier: 'twin' })).status),
      );
      expect(statuses.sort()).toEqual([202, 402]);
      // The same request twice at once (a client retrying a request whose answer it lost): one job, named by both answers.
      const retried = await Promise.all(
        [0, 1].map(async () => post(server, { htmlContent: '<p>retried</p>', identifier: 'retried', priority: 3 })),
      );
      expect(retried.map((answer) => answer.status)).toEqual([202, 202]);
      const [first, second] = (await Promise.all(retried.map((answer) => answer.json()))) as Array<{
        jobId: string;
        identifier: string;
      }>;
      expect(second!.jobId).toBe(first!.jobId);
      // The same identifier with another priority is another request.
      expect((await post(server, { htmlContent: '<p>retried</p>', identifier: 'retried' })).status).toBe(402);
      server.clock.time += 59_000;
      expect((await post(server, { htmlContent: '<p>twin 9</p>', identifier: 'twin' })).status).toBe(402);
      server.clock.time += 1_000;
      expect((await post(server, { htmlContent: '<p>twin 9</p>', identifier: 'twin' })).status).toBe(202);
    } finally {
      await server.close();
      hook.close();
    }
  });

  it('lets a sync request overtake a backlog of async jobs', async () => {
    const hook = await receiver();
    const server = await startServer({ concurrency: 1 }, undefined, { realClock: true });
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const slow = { htmlContent: '<p>async</p>', waitDelay: 300 };
      for (let i = 0; i < 6; i += 1)
        expect((await post(server, { ...slow, identifier: `backlog-${i}` })).status).toBe(202);
      const finished = () =>
        (server.db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'succeeded'").get() as { n: number }).n;
      const before = finished();
      const sync = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: '<p>sync</p>' }),
      });
      expect(sync.status).toBe(200);
      // The sync request waited for at most the job in hand, not for the rest of the backlog.
      expect(before).toBeLessThanOrEqual(4); // a backlog is still there to overtake
      expect(finished()).toBeLessThanOrEqual(before + 1);
      await hook.waitFor(6);
    } finally {
      await server.close();
      hook.close();
    }
  }, 30_000);

  it('fails a document that never finishes after one attempt, not retried: the reason in its webhook and status', async () => {
    const hook = await receiver();
    const server = await startServer({ maxAttempts: 3, timeout: '500ms' }, undefined, { realClock: true });
    try {
      const endpoint = await server.deps.webhooks.add(hook.url, Date.now());
      const { jobId } = await (
        await post(server, { htmlContent: '<script>while (true) {}</script>', identifier: 'never' })
      ).json();
      // No retry to wait for: the deadline is the document's own, and the same document would pass it again.
      const [delivery] = await hook.waitFor(1, 15_000);
      expect(new Webhook(endpoint.secret).verify(delivery!.body, delivery!.headers)).toEqual({
        type: 'RENDER_PDF_FAILED',
        payload: {
          id: 'never',
          jobId,
          error: 'the document did not finish rendering within the 0.5 s deadline',
          errorCode: 'RENDER_PDF_FAILED',
        },
      });
      const answer = await fetch(`${server.url}/api/pdfs/jobs/${jobId}`);
      const status = await answer.json();
      // The status call worked (200), and its outcome is the job's failure: nothing in it reads as success.
      expect(answer.status).toBe(200);
      expect(status).toMatchObject({
        outcome: 'RENDER_PDF_FAILED',
        status: 'failed',
        attempts: 1,
        error: 'the document did not finish rendering within the 0.5 s deadline',
        errorCode: 'RENDER_PDF_FAILED',
      });
      expect(status).not.toHaveProperty('fileUrl');
      // The failed attempt's cause is in the operator's log, with the job it belongs to, saying it is not retried.
      const logged = server.events.filter((event) => event.jobId === jobId && event.code === 'RENDER_PDF_FAILED');
      expect(logged.map((event) => event.message)).toEqual([
        'job failed: the render failed because of the document itself, not tried again (attempt 1 of 3)',
      ]);
    } finally {
      await server.close();
      hook.close();
    }
  });

  it('retries a delivery that got no answer in time', async () => {
    const hook = await receiver();
    let first = true;
    // The first request hangs (the receiver never answers it); the retry is answered at once.
    const silent = createServer((req, res) => {
      if (first) return void (first = false);
      hook.received.push({ headers: req.headers as Record<string, string>, body: '' });
      res.writeHead(204).end();
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const server = await startServer({ webhookTimeout: '1s' }, { engine }, { realClock: true });
    try {
      await server.deps.webhooks.add(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/`, Date.now());
      const { jobId } = await (await post(server, { htmlContent: '<p>x</p>', identifier: 'slow-receiver' })).json();
      // The first attempt times out and waits for its retry (5 s on, give or take 10%): move the clock there.
      const [timedOut] = await until(() => {
        const rows = deliveriesOf(server, jobId);
        return rows[0]?.attempts === 1 && rows[0].status === 'pending' && rows;
      }, 'the first attempt to time out');
      expect(timedOut!.last_error).toBe('no answer within 1 s');
      skipTo(server, timedOut!.next_attempt_at);
      await hook.waitFor(1, 20_000);
      // The receiver answers before the sender writes the outcome: wait for the row to settle.
      const [entry] = await until(
        () => deliveriesOf(server, jobId)[0]!.status !== 'pending' && deliveriesOf(server, jobId),
        'the delivery to settle',
      );
      expect(entry).toMatchObject({ status: 'delivered', attempts: 2, last_error: null });
    } finally {
      await server.close();
      silent.closeAllConnections();
      silent.close();
      hook.close();
    }
  }, 30_000);

  it('retries a delivery the receiver refused with the same webhook-id, and disables an endpoint that answers 410', async () => {
    const flaky = await receiver([500]);
    const gone = await receiver([410]);
    const server = await startServer({}, { engine }, { realClock: true });
    try {
      const flakyEndpoint = await server.deps.webhooks.add(flaky.url, Date.now());
      const goneEndpoint = await server.deps.webhooks.add(gone.url, Date.now());
      const queued = await post(server, { htmlContent: '<p>x</p>', identifier: 'retry-me' });
      expect(queued.status).toBe(202);
      const { jobId } = await queued.json();
      // The refused attempt waits for its retry (5 s on, give or take 10%): move the clock there.
      const toFlaky = await until(() => {
        const row = deliveriesOf(server, jobId).find((delivery) => delivery.endpoint_id === flakyEndpoint.id);
        return row?.attempts === 1 && row.status === 'pending' && row;
      }, 'the refused attempt to be recorded');
      expect(toFlaky.last_error).toBe('the receiver answered 500');
      skipTo(server, toFlaky.next_attempt_at);
      const [refused, accepted] = await flaky.waitFor(2, 20_000);
      expect(accepted!.headers['webhook-id']).toBe(refused!.headers['webhook-id']);
      expect(accepted!.body).toBe(refused!.body);
      await gone.waitFor(1);
      expect((await server.deps.webhooks.get(goneEndpoint.id))!.disabledAt).toEqual(expect.any(Number));
      // The disabled endpoint hears nothing of the next job.
      expect((await post(server, { htmlContent: '<p>y</p>', identifier: 'after-410' })).status).toBe(202);
      await flaky.waitFor(3);
      expect(gone.received).toHaveLength(1);
    } finally {
      await server.close();
      flaky.close();
      gone.close();
    }
  }, 40_000);

  it('keeps the lease heartbeat and the webhook sender running through a locked database', async () => {
    const hook = await receiver();
    // The document renders until the test opens its gate (on loopback, which --allow-host lets it reach).
    const gate = await startGate();
    // A 3 s lease: its heartbeat comes every second.
    const server = await startServer({ allowHosts: ['127.0.0.1'], jobLease: '3s' }, undefined, { realClock: true });
    const locker = openDb(join(server.deps.config.dataDir, 'pdfrender.db'));
    // Each try of a write calls the store again: a call that repeats has met the lock and waited.
    const heartbeats = vi.spyOn(server.deps.queue, 'heartbeat');
    const polls = vi.spyOn(server.deps.store.deliveries, 'claim');
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const { jobId } = await (
        await post(server, { htmlContent: gate.document(), identifier: 'through-a-lock' })
      ).json();
      const status = () =>
        (server.db.prepare('SELECT status FROM jobs WHERE id = ?').get(jobId) as { status: string }).status;
      await gate.reached(1);
      expect(status()).toBe('rendering');
      // Another connection holds the write lock until a heartbeat (every 1 s) and a sender poll have each tried again under it.
      locker.exec('BEGIN IMMEDIATE');
      const [beatsBefore, pollsBefore] = [heartbeats.mock.calls.length, polls.mock.calls.length];
      await until(
        () => heartbeats.mock.calls.length >= beatsBefore + 2 && polls.mock.calls.length >= pollsBefore + 2,
        'a heartbeat and a sender poll waiting on the lock',
      );
      locker.exec('COMMIT');
      gate.open();
      const [delivery] = await hook.waitFor(1, 20_000);
      expect(JSON.parse(delivery!.body)).toMatchObject({
        type: 'PDF_RENDERED',
        payload: { id: 'through-a-lock', jobId },
      });
      expect(status()).toBe('succeeded');
      // The heartbeat and the sender waited for the lock (without blocking): no error, nothing to log.
      expect(server.events.filter((event) => event.level === 'error')).toEqual([]);
    } finally {
      gate.close();
      locker.close();
      await server.close();
      hook.close();
    }
  }, 30_000);
});
