/**
 * An enqueue whose answer is lost on the way back: a real `pdfrender serve` on PostgreSQL through a
 * TCP proxy of the test's own that goes silent (no reset) once the enqueue statement has passed, or
 * before it. The instance does not guess: it asks the database whether the job it sent is there,
 * and answers 202 when it is, 503 (nothing queued) when it is not and cannot be any more, and 504
 * OUTCOME_UNKNOWN only when the database cannot be asked. The same request with the same identifier
 * again answers the job the first one queued, never a second job or a 402.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from './support/cli.js';
import { removeTempDirs } from './support/files.js';
import { holdingProxy } from './support/holding-proxy.js';
import {
  addEndpoint,
  deliveryLogSettled,
  eventOf,
  renderAsync,
  startInstances,
  stopInstances,
} from './support/instances.js';
import { startCluster, type Cluster } from './support/postgres.js';
import { receiver, type Receiver } from './support/receiver.js';
import { until } from './support/wait.js';

let cluster: Cluster;
let proxy: Awaited<ReturnType<typeof holdingProxy>>;
let hook: Receiver;
let db: pg.Pool;
let instance: ServeProcess;

beforeAll(async () => {
  [cluster, hook] = await Promise.all([startCluster(), receiver()]);
  const direct = await cluster.createDatabase('lost');
  db = cluster.pool(direct, 2);
  proxy = await holdingProxy(cluster.port);
  // A short --database-timeout: the statement's answer is given up on after 1 s, not 30.
  [instance] = (await startInstances(1, `postgres://postgres@127.0.0.1:${proxy.port}/lost`, [
    '--database-timeout',
    '1s',
  ])) as [ServeProcess];
  await addEndpoint(direct, hook.url);
}, 120_000);

afterAll(async () => {
  proxy?.heal();
  if (instance) await stopInstances([instance]);
  proxy?.close();
  hook?.close();
  await cluster?.stop();
  await removeTempDirs();
}, 60_000);

/** The jobs in the database for `identifier`. */
const jobsOf = async (identifier: string) =>
  (await db.query<{ id: string }>('SELECT id FROM jobs WHERE identifier = $1', [identifier])).rows.map((r) => r.id);

/** Wait until `jobId`'s one event has arrived and nothing is left to send; answers the events for `identifier`. */
async function deliveredOnce(identifier: string) {
  await until(
    () => hook.received.some((arrival) => eventOf(arrival).payload.id === identifier),
    `the event of ${identifier}`,
  );
  await deliveryLogSettled(db);
  return hook.received.map(eventOf).filter((event) => event.payload.id === identifier);
}

describe('an enqueue whose answer is lost', () => {
  it('answers 202 with the job when the statement reached the database and only its answer was held', async () => {
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'after' });
    const answer = await renderAsync(instance.url, { htmlContent: '<p>answer held</p>', identifier: 'held-answer' });
    expect(proxy.held).toBe(1);
    expect(answer.status, JSON.stringify(answer.body)).toBe(202);
    expect(await jobsOf('held-answer')).toEqual([answer.body.jobId]);
    const events = await deliveredOnce('held-answer');
    expect(events.map((event) => [event.type, event.payload.jobId])).toEqual([['PDF_RENDERED', answer.body.jobId]]);
  });

  it('answers 503 (nothing queued, which is true) when the statement itself was held, and the same request again queues it', async () => {
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'before' });
    const lost = await renderAsync(instance.url, {
      htmlContent: '<p>statement held</p>',
      identifier: 'held-statement',
    });
    expect(proxy.held).toBe(2);
    expect(lost.status, JSON.stringify(lost.body)).toBe(503);
    expect(lost.body.outcome).toBe('STORAGE_UNAVAILABLE');
    expect(await jobsOf('held-statement')).toEqual([]);
    // The failed write made the instance look at the database again; it answers at once.
    await until(async () => (await fetch(`${instance.url}/readyz`)).status === 200, 'the instance to be ready again');
    const again = await renderAsync(instance.url, {
      htmlContent: '<p>statement held</p>',
      identifier: 'held-statement',
    });
    expect(again.status).toBe(202);
    expect(await jobsOf('held-statement')).toEqual([again.body.jobId]);
    expect((await deliveredOnce('held-statement')).map((event) => event.payload.jobId)).toEqual([again.body.jobId]);
  });

  it('answers 504 OUTCOME_UNKNOWN when the database cannot be asked, and the retry after it answers the job that was queued, not a second one or a 402', async () => {
    proxy.arm({ marker: 'pdfrender_enqueue_v3', when: 'after', everything: true });
    const request = { htmlContent: '<p>cut off</p>', identifier: 'cut-off' };
    const response = await fetch(`${instance.url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    });
    const body = (await response.json()) as { outcome: string; message: string };
    expect(response.status, JSON.stringify(body)).toBe(504);
    expect(body.outcome).toBe('OUTCOME_UNKNOWN');
    expect(body.message).toMatch(
      /whether the job was queued is not known; send the same request with the same identifier again/,
    );
    expect(response.headers.get('retry-after')).toBe('5');
    // It was queued: the database has it.
    const [queued] = await jobsOf('cut-off');
    expect(queued).toMatch(/^job_/);

    proxy.heal();
    await until(async () => (await fetch(`${instance.url}/readyz`)).status === 200, 'the instance to be ready again');
    const retry = await renderAsync(instance.url, request);
    expect(retry.status, JSON.stringify(retry.body)).toBe(202);
    expect(retry.body.jobId).toBe(queued);
    // Another request under the same identifier is still a duplicate.
    const other = await renderAsync(instance.url, { ...request, htmlContent: '<p>something else</p>' });
    expect(other.status).toBe(402);
    expect(await jobsOf('cut-off')).toEqual([queued]);
    expect((await deliveredOnce('cut-off')).map((event) => event.payload.jobId)).toEqual([queued]);
    expect(instance.child.exitCode).toBeNull();
  }, 60_000);
});

/** What /readyz answered, with its HTTP status. */
interface Readiness {
  httpStatus: number;
  checks: Record<string, boolean>;
  reasons: Record<string, string>;
}

describe('/readyz while the database does not answer', () => {
  it('answers 503 within its own 5 s bound (the default --database-timeout is 30 s), saying the database did not answer, and 200 again once it answers', async () => {
    // An instance with the default timeouts: before, its probe waited for a pool connection (10 s)
    // or a statement (30 s) and blamed "a conflicting change" or "an unexpected failure".
    const [patient] = (await startInstances(1, `postgres://postgres@127.0.0.1:${proxy.port}/lost`)) as [ServeProcess];
    try {
      proxy.holdAll();
      const [fromDefault, fromShort] = (await Promise.all(
        [patient, instance].map(async (server) => {
          const response = await fetch(`${server.url}/readyz`);
          return {
            ...((await response.json()) as { checks: Record<string, boolean>; reasons: Record<string, string> }),
            httpStatus: response.status,
          };
        }),
      )) as [Readiness, Readiness];
      expect(fromDefault).toMatchObject({ httpStatus: 503, checks: { database: false, storage: false } });
      expect(fromDefault.reasons).toEqual({
        database: 'STORAGE_UNAVAILABLE: the database did not answer within 5 s',
        storage: 'STORAGE_UNAVAILABLE: the database does not answer: no answer within 5 s',
      });
      // With --database-timeout 1s the statement gives up first, and says so.
      expect(fromShort).toMatchObject({ httpStatus: 503, checks: { database: false } });
      expect(fromShort.reasons.database).toBe(
        "STORAGE_UNAVAILABLE: the server's database did not answer in time (--database-timeout); try again later or another instance",
      );
    } finally {
      proxy.heal();
    }
    for (const server of [patient, instance])
      await until(async () => (await fetch(`${server.url}/readyz`)).status === 200, 'the instance to be ready again');
    await stopInstances([patient]);
  }, 60_000);
});
