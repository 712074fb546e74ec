/**
 * Several real `pdfrender serve` processes on one PostgreSQL database, as a user runs them behind
 * a load balancer: each with its own data dir, started together, stopped together.
 */
import { expect } from 'vitest';
import { pdfrender, startServe, type ServeProcess } from './cli.js';
import { tempDir } from './files.js';

/** Start `count` instances on `database` at the same moment, each with `--concurrency 1` (2 cores) and `args`. */
export async function startInstances(count: number, database: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<ServeProcess[]> {
  const dataDirs = await Promise.all(Array.from({ length: count }, () => tempDir()));
  const started = await Promise.allSettled(dataDirs.map((dataDir) => startServe(['--database', database, '--data-dir', dataDir, '--concurrency', '1', '--allow-private-webhooks', ...args], env)));
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

/** Add a webhook endpoint to `database` from the command line, as an operator does once for all instances. */
export async function addEndpoint(database: string, url: string): Promise<void> {
  const run = await pdfrender(['webhooks', 'add', url, '--database', database, '--allow-private-webhooks']);
  expect(run.code, run.stderr).toBe(0);
}

/** POST a render-async request to `base`; answers the status and the body. */
export async function renderAsync(base: string, body: Record<string, unknown>): Promise<{ status: number; body: { jobId?: string; statusUrl?: string; outcome?: string } }> {
  const response = await fetch(`${base}/api/pdfs/render-async`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { jobId?: string; statusUrl?: string; outcome?: string } };
}

/** A job's status as `base` reports it. */
export async function jobStatus(base: string, jobId: string): Promise<{ status: string; attempts: number; fileUrl?: string; identifier: string }> {
  const response = await fetch(`${base}/api/pdfs/jobs/${jobId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as { status: string; attempts: number; fileUrl?: string; identifier: string };
}

/** `url` (another instance's) with the origin of `base`: what a load balancer does to a download. */
export const onInstance = (url: string, base: string): string => `${base}${new URL(url).pathname}`;

/** Run `work` over `items` with at most `width` at once (a client with a connection pool). */
export async function inParallel<T, R>(items: T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
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
