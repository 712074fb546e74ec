/**
 * Nothing is lost when the server dies: a `pdfrender serve` process with 30 queued jobs is killed
 * with SIGKILL mid-render, started again on the same data dir, and every job reaches a final state
 * with its webhook delivered. Also the delivery log and redelivery from the command line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { browsersOf, remainingAfter } from './support/chromium-processes.js';
import { startServe } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { until } from './support/wait.js';

/** `pdfrender webhooks ...` in this process: those commands only read and write the data dir. */
const pdfrender = inProcessCli();

afterAll(async () => {
  await pdfrender.close();
  await removeTempDirs();
});

/** Run the CLI and answer its standard output (failing the test on a non-zero exit). */
async function cli(args: string[]): Promise<string> {
  const run = await pdfrender.run(args);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.toString();
}

/**
 * --allow-host: the documents ping the test's loopback receiver. A short lease and webhook timeout
 * bring back soon what the killed server held: its jobs (after --job-lease) and an attempt it had in
 * flight (after --webhook-timeout + 5 s).
 */
const serve = (dataDir: string) =>
  startServe([
    '--data-dir',
    dataDir,
    '--concurrency',
    '2',
    '--allow-private-webhooks',
    '--allow-host',
    '127.0.0.1',
    '--job-lease',
    '3s',
    '--webhook-timeout',
    '1s',
  ]);

describe('crash safety', () => {
  it('delivers every job of a server killed with SIGKILL mid-render, after a restart', async () => {
    const events = new Map<string, { type: string; webhookId: string }[]>();
    // Each document loads /started/<identifier> as it starts rendering, so the test sees renders in
    // flight; the answer comes 200 ms later, holding the render that long (the first server's only).
    const started = new Set<string>();
    let holdMs = 200;
    const receiver = createServer((req, res) => {
      if (req.method === 'GET' && req.url?.startsWith('/started/')) {
        started.add(req.url.slice('/started/'.length));
        return void setTimeout(() => res.writeHead(204).end(), holdMs);
      }
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const event = JSON.parse(body);
        const list = events.get(event.payload.id) ?? [];
        list.push({ type: event.type, webhookId: String(req.headers['webhook-id']) });
        events.set(event.payload.id, list);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const dataDir = await tempDir();
    await cli([
      'webhooks',
      'add',
      `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      '--data-dir',
      dataDir,
      '--allow-private-webhooks',
    ]);

    const first = await serve(dataDir);
    const port = (receiver.address() as AddressInfo).port;
    const slow = (id: string) => `<img src="http://127.0.0.1:${port}/started/${id}"><p>job</p>`;
    for (let i = 0; i < 30; i += 1) {
      const response = await fetch(`${first.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: slow(`job-${i}`), identifier: `job-${i}` }),
      });
      expect(response.status).toBe(202);
    }
    // Killed once some jobs are delivered and another has started but is not delivered yet.
    await until(() => events.size >= 1 && started.size > events.size, 'a delivered job and a render in flight');
    const profiles = [...browsersOf(first.child.pid!).values()];
    expect(profiles).toHaveLength(1);
    first.child.kill('SIGKILL');
    await first.exited;
    holdMs = 0;
    // The killed server's browser quits with it (its DevTools pipe closes): nothing of it remains.
    expect(await remainingAfter(profiles[0]!, 5_000)).toEqual([]);
    const beforeRestart = events.size;
    expect(beforeRestart).toBeLessThan(30);

    const second = await serve(dataDir);
    try {
      await until(() => events.size >= 30, 'the 30 deliveries', 60_000);
      expect([...events.keys()].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `job-${i}`).sort());
      for (const list of events.values()) expect(list.every((event) => event.type === 'PDF_RENDERED')).toBe(true);

      // The delivery log and a redelivery, from the command line, while the server runs. An attempt
      // the killed server had in flight (its receiver may have answered) is sent again once its
      // hold runs out (request timeout + 5 s), so the log may need that long to settle.
      const readLog = async () =>
        JSON.parse(await cli(['webhooks', 'deliveries', '--json', '--limit', '100', '--data-dir', dataDir])) as Array<{
          jobId: string;
          status: string;
        }>;
      const log = await until(
        async () => {
          const read = await readLog();
          return !read.some((entry) => entry.status === 'pending') && read;
        },
        'no pending delivery in the log',
        30_000,
      );
      expect(log.length).toBeGreaterThanOrEqual(30);
      expect(log.filter((entry) => entry.status !== 'delivered')).toEqual([]);
      expect((await cli(['webhooks', 'deliveries', '--failed', '--data-dir', dataDir])).trim()).toBe(
        'no failed deliveries',
      );
      const status = await (await fetch(`${second.url}/api/pdfs/jobs/${log[0]!.jobId}`)).json();
      const before = events.get(status.identifier)!.length;
      expect((await cli(['webhooks', 'redeliver', log[0]!.jobId, '--data-dir', dataDir])).trim()).toBe(
        `queued 1 delivery of ${log[0]!.jobId} again`,
      );
      await until(() => events.get(status.identifier)!.length > before, 'the redelivery', 10_000);
      const again = events.get(status.identifier)!;
      expect(again).toHaveLength(before + 1);
      expect(again.at(-1)!.webhookId).toBe(again.at(-2)!.webhookId);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
      receiver.close();
    }
  }, 150_000);
});

describe('the job lease', () => {
  it('is a serve setting with an environment twin, from 3s to 10m', () => {
    expect(loadServeConfig({}, {}, '/srv').jobLease).toBe(10_000);
    expect(loadServeConfig({}, { PDFRENDER_JOB_LEASE: '30s' }, '/srv').jobLease).toBe(30_000);
    expect(loadServeConfig({ jobLease: '3s' }, { PDFRENDER_JOB_LEASE: '30s' }, '/srv').jobLease).toBe(3_000);
    expect(() => loadServeConfig({ jobLease: '2s' }, {}, '/srv')).toThrow(
      /--job-lease \(PDFRENDER_JOB_LEASE\): must be at least 3s/,
    );
    expect(() => loadServeConfig({}, { PDFRENDER_JOB_LEASE: '11m' }, '/srv')).toThrow(
      /--job-lease \(PDFRENDER_JOB_LEASE\): must be at most 10m/,
    );
  });
});
