/**
 * An instance killed mid-delivery, on PostgreSQL: its four attempts in flight to a receiver that
 * never answers them take the endpoint's whole cap (four at once). Its claims are leases it renewed
 * while it waited; once it is dead they run out after --job-lease (3 s here), and another instance
 * sends the four events again, though --webhook-timeout is a minute. Before, a claim was held for
 * --webhook-timeout + 5 s, and the endpoint got nothing from anyone for that long.
 */
import type { ServerResponse } from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from './support/cli.js';
import { removeTempDirs } from './support/files.js';
import { addEndpoint, eventOf, renderAsync, startInstances, stopInstances } from './support/instances.js';
import { startCluster, type Cluster } from './support/postgres.js';
import { receiver, type Receiver } from './support/receiver.js';
import { until } from './support/wait.js';

const leaseMs = 3_000;
const args = ['--job-lease', `${leaseMs}ms`, '--webhook-timeout', '60s'];
let cluster: Cluster;
let database: string;
let db: pg.Pool;
let hook: Receiver;
/** The answers the receiver holds: the first four arrivals are never answered. */
const unanswered: ServerResponse[] = [];
const instances: ServeProcess[] = [];

beforeAll(async () => {
  [cluster, hook] = await Promise.all([
    startCluster(),
    receiver((res, index) => (index < 4 ? unanswered.push(res) : res.writeHead(200).end())),
  ]);
  database = await cluster.createDatabase('delivery_lease');
  db = cluster.pool(database, 2);
}, 120_000);

afterAll(async () => {
  for (const res of unanswered) res.destroy();
  await stopInstances(instances);
  hook?.close();
  await cluster?.stop();
  await removeTempDirs();
}, 60_000);

describe('an instance killed with attempts in flight', () => {
  it("frees the endpoint's cap and has its events sent again once its leases run out, not after --webhook-timeout", async () => {
    const [first] = await startInstances(1, database, args);
    instances.push(first!);
    await addEndpoint(database, hook.url);
    const jobIds: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      const answer = await renderAsync(first!.url, { htmlContent: `<p>lease ${i}</p>`, identifier: `lease-${i}` });
      expect(answer.status).toBe(202);
      jobIds.push(answer.body.jobId!);
    }
    // All four attempts are in flight at the receiver, which holds them: the endpoint's cap is taken.
    await until(() => unanswered.length === 4, 'four attempts held at the receiver');
    // Held on a lease (renewed every second while the attempt waits), never for the minute the receiver has.
    const leases = async () =>
      (
        await db.query<{ left: number }>(
          "SELECT (claimed_until - extract(epoch from clock_timestamp()) * 1000)::float8 AS left FROM webhook_deliveries WHERE status = 'pending'",
        )
      ).rows.map((r) => r.left);
    const left = await leases();
    expect(left).toHaveLength(4);
    // Within the lease, give or take the clock estimate's error and the rounding of times to ms.
    expect(
      left.every((ms) => ms > 0 && ms <= leaseMs + 100),
      JSON.stringify(left),
    ).toBe(true);

    first!.child.kill('SIGKILL');
    await first!.exited;
    const [second] = await startInstances(1, database, args);
    instances.push(second!);
    // The second instance sends all four again once the dead one's leases have run out (the
    // receiver answers from the fifth arrival on); with claims held for --webhook-timeout + 5 s it
    // could not before 65 s.
    await until(
      async () =>
        Number(
          (await db.query<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'delivered'"))
            .rows[0]!.n,
        ) === 4,
      'the four events delivered by the second instance',
      40_000,
    );
    const delivered = hook.received.slice(4).map(eventOf);
    expect(new Set(delivered.map((event) => event.payload.jobId))).toEqual(new Set(jobIds));
    // The same events, sent again under the same webhook-ids (receivers dedupe by it).
    expect(new Set(hook.received.slice(4).map((arrival) => arrival.headers['webhook-id']))).toEqual(
      new Set(hook.received.slice(0, 4).map((arrival) => arrival.headers['webhook-id'])),
    );
  }, 90_000);
});
