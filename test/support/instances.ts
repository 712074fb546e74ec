/**
 * Several real `pdfrender serve` processes on one PostgreSQL database, as a user runs them behind
 * a load balancer: each with its own data dir, started together, stopped together, sending their
 * webhooks to one receiver.
 */
import type pg from 'pg';
import { expect } from 'vitest';
import { startServe, type ServeProcess } from './cli.js';
import { inProcessCli } from './cli-in-process.js';
import { removeTempDirs, tempDir } from './files.js';
import { startCluster, type Cluster, type ClusterOptions } from './postgres.js';
import { receiver, type Arrival, type Receiver } from './receiver.js';
import { until } from './wait.js';

export interface Deployment {
  cluster: Cluster;
  database: string;
  /** A pool on the shared database, to look under the instances. */
  db: pg.Pool;
  /** The one webhook endpoint, added from the command line before any job. */
  hook: Receiver;
  instances: ServeProcess[];
  /** Wait until the shared delivery log has nothing left to send (so no event can still come). */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A throw-away cluster (started with `clusterOptions`), database `name` in it, a receiver and
 * `count` instances started at the same moment with `args`.
 */
export async function startDeployment(
  name: string,
  count: number,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
  clusterOptions: ClusterOptions = {},
): Promise<Deployment> {
  const [cluster, hook] = await Promise.all([startCluster(clusterOptions), receiver()]);
  let instances: ServeProcess[] = [];
  const stop = async () => {
    await stopInstances(instances);
    hook.close();
    await cluster.stop();
    await removeTempDirs();
  };
  try {
    const database = await cluster.createDatabase(name);
    const db = cluster.pool(database, 2);
    instances = await startInstances(count, database, args, env);
    await addEndpoint(database, hook.url);
    return {
      cluster,
      database,
      db,
      hook,
      instances,
      stop,
      settled: () => deliveryLogSettled(db),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Wait until the shared delivery log has nothing left to send, so no event can still come. */
export async function deliveryLogSettled(db: pg.Pool): Promise<void> {
  const unsettled = async () =>
    Number(
      (await db.query<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'"))
        .rows[0]!.n,
    );
  await until(async () => (await unsettled()) === 0, 'the delivery log to settle');
}

/** A webhook as the receiver got it. */
export interface WebhookEvent {
  type: string;
  payload: { id: string; jobId: string; url?: string };
}

/** The event an arrival at the receiver carries. */
export const eventOf = (arrival: Arrival) => JSON.parse(arrival.body) as WebhookEvent;

/** How many distinct identifiers the events at `hook` name. */
export const identifiersAt = (hook: Receiver, prefix = '') =>
  new Set(hook.received.map((arrival) => eventOf(arrival).payload.id).filter((id) => id.startsWith(prefix))).size;

/** Start `count` instances on `database` at the same moment, each with `--concurrency 1` (2 cores) and `args`. */
export async function startInstances(
  count: number,
  database: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<ServeProcess[]> {
  const dataDirs = await Promise.all(Array.from({ length: count }, () => tempDir()));
  const started = await Promise.allSettled(
    dataDirs.map((dataDir) =>
      startServe(
        ['--database', database, '--data-dir', dataDir, '--concurrency', '1', '--allow-private-webhooks', ...args],
        env,
      ),
    ),
  );
  const up = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await stopInstances(up);
    throw failed.reason;
  }
  return up;
}

/** Stop every instance still running (SIGTERM) and wait for it to exit. */
export async function stopInstances(instances: ServeProcess[]): Promise<void> {
  await Promise.all(
    instances.map(async (instance) => {
      if (instance.child.exitCode === null && instance.child.signalCode === null) instance.child.kill('SIGTERM');
      await instance.exited;
    }),
  );
}

/** Add a webhook endpoint to `database` from the command line (run in this process), as an operator does once for all instances. */
export async function addEndpoint(database: string, url: string): Promise<void> {
  const run = await inProcessCli().run(['webhooks', 'add', url, '--database', database, '--allow-private-webhooks']);
  expect(run.code, run.stderr).toBe(0);
}

/** POST a render-async request to `base`; answers the status and the body. */
export async function renderAsync(
  base: string,
  body: Record<string, unknown>,
): Promise<{ status: number; body: { jobId?: string; statusUrl?: string; outcome?: string } }> {
  const response = await fetch(`${base}/api/pdfs/render-async`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { jobId?: string; statusUrl?: string; outcome?: string },
  };
}

/** A job's status as `base` reports it. */
export async function jobStatus(
  base: string,
  jobId: string,
): Promise<{ status: string; attempts: number; fileUrl?: string; identifier: string }> {
  const response = await fetch(`${base}/api/pdfs/jobs/${jobId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; attempts: number; fileUrl?: string; identifier: string };
}

/** `url` (another instance's) with the origin of `base`: what a load balancer does to a download. */
export const onInstance = (url: string, base: string): string => `${base}${new URL(url).pathname}`;

/** Run `work` over `items` with at most `width` at once (a client with a connection pool). */
export async function inParallel<T, R>(
  items: T[],
  width: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}
