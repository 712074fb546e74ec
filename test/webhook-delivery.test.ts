/**
 * The webhook sender of a real server against real local receivers: a receiver that never answers
 * does not hold up a healthy one, an attempt gets --webhook-timeout to be answered, Retry-After is
 * honoured (on the server's clock, which the test moves), and redirects are not followed. Events
 * are queued straight into the server's database, as a finished job would, so no render is needed.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { removeTempDirs } from './support/files.js';
import { receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

/** Queue `count` events for every active endpoint in one transaction and wake the sender, as finished jobs do. */
function queueEvents(server: TestServer, count: number): void {
  const outbox = deliveries(server.db);
  server.db.transaction(() => {
    for (let i = 0; i < count; i += 1)
      outbox.queueEvent(
        `job_${i}`,
        { type: 'PDF_RENDERED', payload: { id: `doc-${i}`, jobId: `job_${i}` } },
        server.clock.now(),
      );
  })();
  server.deps.wakeSender();
}

interface DeliveryState {
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
}
const deliveriesTo = (server: TestServer, endpointId: string) =>
  server.db
    .prepare(
      'SELECT status, attempts, next_attempt_at, last_status, last_error FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id',
    )
    .all(endpointId) as DeliveryState[];

let engine: Engine;

beforeAll(() => {
  // Never started: these servers render nothing.
  engine = createEngine({ executablePath, concurrency: 1 });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

describe('webhook sender', () => {
  it('keeps a receiver that never answers from delaying a healthy one', async () => {
    const timeoutMs = 3_000;
    const hanging = await receiver(() => {});
    const healthy = await receiver();
    const server = await startServer({ webhookTimeout: `${timeoutMs}ms` }, { engine });
    try {
      const dead = await server.deps.webhooks.add(hanging.url, server.clock.now());
      await server.deps.webhooks.add(healthy.url, server.clock.now());
      // More events than the sender has slots: unbounded, the hanging receiver's attempts (each
      // event's first delivery) would fill every slot and the rest would wait for their timeouts.
      const events = 60;
      queueEvents(server, events);
      await until(() => healthy.received.length === events, `${events} events at the healthy receiver`, timeoutMs * 5);
      // Ordering, not speed: every healthy delivery arrived before any attempt to the hanging
      // receiver had timed out, and only a few of those were ever in flight.
      expect(deliveriesTo(server, dead.id).filter((d) => d.attempts > 0)).toEqual([]);
      expect(hanging.received).toHaveLength(4);
      expect(new Set(healthy.received.map((r) => r.headers['webhook-id'])).size).toBe(events);
    } finally {
      hanging.close();
      await server.close();
      healthy.close();
    }
  }, 30_000);

  it('gives a receiver --webhook-timeout to answer, then retries the event with the same webhook-id', async () => {
    // The first request is never answered; the retry is.
    const hook = await receiver((res, index) => void (index > 0 && res.writeHead(200).end()));
    const server = await startServer({ webhookTimeout: '1s' }, { engine });
    try {
      const endpoint = await server.deps.webhooks.add(hook.url, server.clock.now());
      const start = server.clock.now();
      queueEvents(server, 1);
      // Well before the 15 s default could have run out.
      await until(() => deliveriesTo(server, endpoint.id)[0]!.attempts === 1, 'the first attempt to time out', 10_000);
      expect(deliveriesTo(server, endpoint.id)[0]).toMatchObject({
        status: 'pending',
        last_status: null,
        last_error: 'no answer within 1 s',
      });
      server.clock.time = start + 6_000; // past the 5 s retry (give or take 10%)
      server.deps.wakeSender(); // rather than wait for its next poll
      await until(() => deliveriesTo(server, endpoint.id)[0]!.status === 'delivered', 'the retry');
      // At least once: the receiver got the event twice, under one webhook-id to dedupe by.
      expect(hook.received.map((r) => r.headers['webhook-id'])).toEqual(
        Array(2).fill(hook.received[0]!.headers['webhook-id']),
      );
    } finally {
      hook.close();
      await server.close();
    }
  }, 30_000);

  it('takes --webhook-timeout or PDFRENDER_WEBHOOK_TIMEOUT, 1s to 10m, 15s by default', async () => {
    expect(loadServeConfig({}, {}, '/srv').webhookTimeout).toBe(15_000);
    expect(loadServeConfig({}, { PDFRENDER_WEBHOOK_TIMEOUT: '45s' }, '/srv').webhookTimeout).toBe(45_000);
    expect(loadServeConfig({ webhookTimeout: '2m' }, { PDFRENDER_WEBHOOK_TIMEOUT: '45s' }, '/srv').webhookTimeout).toBe(
      120_000,
    );
    expect(() => loadServeConfig({}, { PDFRENDER_WEBHOOK_TIMEOUT: '1h' }, '/srv')).toThrow(
      '--webhook-timeout (PDFRENDER_WEBHOOK_TIMEOUT): must be at most 10m',
    );
    const run = await pdfrender(['serve', '--port', '0', '--webhook-timeout', '500ms']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('pdfrender: --webhook-timeout (PDFRENDER_WEBHOOK_TIMEOUT): must be at least 1s');
    expect((await pdfrender(['serve', '--help'])).stdout.toString()).toMatch(
      /--webhook-timeout <duration>\s+how long a webhook receiver has to answer/,
    );
  });

  it("waits as long as a receiver's Retry-After asks (up to 10 h) before the next attempt", async () => {
    const hook = await receiver((res, index) => {
      if (index === 0) res.writeHead(503, { 'Retry-After': '60' }).end();
      else if (index === 1) res.writeHead(429, { 'Retry-After': String(7 * 86_400) }).end();
      else res.writeHead(204).end();
    });
    const server = await startServer({}, { engine });
    try {
      const endpoint = await server.deps.webhooks.add(hook.url, server.clock.now());
      const start = server.clock.now();
      queueEvents(server, 1);
      await until(() => deliveriesTo(server, endpoint.id)[0]!.attempts === 1, 'the first attempt');
      expect(deliveriesTo(server, endpoint.id)[0]).toMatchObject({
        status: 'pending',
        last_status: 503,
        next_attempt_at: start + 60_000,
      });
      // Nothing is sent until the server's clock reaches it, however long the test waits.
      server.clock.time = start + 59_999;
      // Two polls of the sender (each a claim on the store) with the clock there, woken rather than waited for.
      const polls = vi.spyOn(server.deps.store.deliveries, 'claim');
      await until(() => (server.deps.wakeSender(), polls.mock.calls.length >= 2), 'two polls of the sender');
      expect(hook.received).toHaveLength(1);
      server.clock.time = start + 60_000;
      server.deps.wakeSender();
      await until(() => deliveriesTo(server, endpoint.id)[0]!.attempts === 2, 'the second attempt');
      // A week is capped at 10 h.
      expect(deliveriesTo(server, endpoint.id)[0]).toMatchObject({
        status: 'pending',
        last_status: 429,
        next_attempt_at: start + 60_000 + 36_000_000,
      });
      server.clock.time = start + 60_000 + 36_000_000;
      server.deps.wakeSender();
      await until(() => deliveriesTo(server, endpoint.id)[0]!.status === 'delivered', 'the third attempt');
      expect(hook.received.map((r) => r.headers['webhook-id'])).toEqual(
        Array(3).fill(hook.received[0]!.headers['webhook-id']),
      );
    } finally {
      await server.close();
      hook.close();
    }
  }, 30_000);

  it("sends an endpoint's deliveries over kept-alive connections, a few at a time", async () => {
    const hook = await receiver((res) => res.writeHead(204).end());
    const server = await startServer({}, { engine });
    try {
      const endpoint = await server.deps.webhooks.add(hook.url, server.clock.now());
      queueEvents(server, 20);
      await until(() => deliveriesTo(server, endpoint.id).every((d) => d.status === 'delivered'), '20 deliveries');
      // At most the 4 attempts in flight to one endpoint each needed a connection of its own.
      expect(hook.received).toHaveLength(20);
      expect(hook.connections).toBeLessThanOrEqual(4);
    } finally {
      await server.close();
      hook.close();
    }
  });

  it('sends a delivery again at once when the kept-alive connection it went out on had been dropped', async () => {
    // Answers the first request on each connection and drops the connection at the second, as a
    // receiver closing an idle connection just as the next delivery is sent on it would.
    const seen = new WeakMap<Socket, number>();
    const arrivals: string[] = [];
    const dropping = createServer((req: IncomingMessage, res) => {
      const count = (seen.get(req.socket) ?? 0) + 1;
      seen.set(req.socket, count);
      if (count > 1) return void req.socket.destroy();
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        arrivals.push(JSON.parse(body).payload.id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => dropping.listen(0, '127.0.0.1', resolve));
    const server = await startServer({}, { engine });
    try {
      const endpoint = await server.deps.webhooks.add(
        `http://127.0.0.1:${(dropping.address() as AddressInfo).port}/hook`,
        server.clock.now(),
      );
      const outbox = deliveries(server.db);
      outbox.queueEvent('job_a', { type: 'PDF_RENDERED', payload: { id: 'first' } }, server.clock.now());
      server.deps.wakeSender();
      await until(() => deliveriesTo(server, endpoint.id)[0]!.status === 'delivered', 'the first delivery');
      outbox.queueEvent('job_b', { type: 'PDF_RENDERED', payload: { id: 'second' } }, server.clock.now());
      server.deps.wakeSender();
      // The server's clock stands still: a delivery that failed would not be tried again here.
      await until(
        () => deliveriesTo(server, endpoint.id)[1]?.status === 'delivered',
        'the second delivery, on a new connection',
        5_000,
      );
      expect(deliveriesTo(server, endpoint.id).map((d) => [d.attempts, d.last_error])).toEqual([
        [1, null],
        [1, null],
      ]);
      expect(arrivals).toEqual(['first', 'second']);
    } finally {
      await server.close();
      dropping.closeAllConnections();
      dropping.close();
    }
  });

  it('sends a delivery on a dropped kept-alive connection again once only, on a new connection', async () => {
    // Four deliveries held until all four are in, so that four kept-alive connections stand idle;
    // then every request is dropped unanswered, on an idle connection or a new one.
    let dropping = false;
    let dropped = 0;
    const held: Array<() => void> = [];
    const receiving = createServer((req: IncomingMessage, res) => {
      if (dropping) {
        dropped += 1;
        return void req.socket.destroy();
      }
      req.resume();
      held.push(() => res.writeHead(204).end());
      if (held.length === 4) held.splice(0).forEach((answer) => answer());
    });
    await new Promise<void>((resolve) => receiving.listen(0, '127.0.0.1', resolve));
    const server = await startServer({}, { engine });
    try {
      const endpoint = await server.deps.webhooks.add(
        `http://127.0.0.1:${(receiving.address() as AddressInfo).port}/hook`,
        server.clock.now(),
      );
      queueEvents(server, 4);
      await until(
        () => deliveriesTo(server, endpoint.id).filter((d) => d.status === 'delivered').length === 4,
        'four deliveries',
      );
      dropping = true;
      deliveries(server.db).queueEvent(
        'job_dropped',
        { type: 'PDF_RENDERED', payload: { id: 'dropped' } },
        server.clock.now(),
      );
      server.deps.wakeSender();
      await until(() => deliveriesTo(server, endpoint.id)[4]?.attempts === 1, 'the attempt on a dropped connection');
      // Once on an idle connection, once more on a new one; not once per idle connection.
      expect(dropped).toBe(2);
      expect(deliveriesTo(server, endpoint.id)[4]!.status).not.toBe('delivered');
    } finally {
      await server.close();
      receiving.closeAllConnections();
      receiving.close();
    }
  });

  it('does not follow redirects: the target hears nothing and the delivery is retried', async () => {
    const target = await receiver();
    const found = await receiver((res) => res.writeHead(302, { Location: target.url }).end());
    const temporary = await receiver((res) => res.writeHead(307, { Location: target.url }).end());
    const server = await startServer({}, { engine });
    try {
      const endpoints = [
        await server.deps.webhooks.add(found.url, server.clock.now()),
        await server.deps.webhooks.add(temporary.url, server.clock.now()),
      ];
      queueEvents(server, 1);
      await until(() => endpoints.every((e) => deliveriesTo(server, e.id)[0]!.attempts === 1), 'both attempts');
      // fetch has finished with each response (a followed redirect would have been sent by now).
      expect(target.received).toEqual([]);
      expect(deliveriesTo(server, endpoints[0]!.id)[0]).toMatchObject({
        status: 'pending',
        last_status: 302,
        last_error: 'the receiver answered 302',
      });
      expect(deliveriesTo(server, endpoints[1]!.id)[0]).toMatchObject({
        status: 'pending',
        last_status: 307,
        last_error: 'the receiver answered 307',
      });
    } finally {
      await server.close();
      target.close();
      found.close();
      temporary.close();
    }
  });
});
