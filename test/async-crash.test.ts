/**
 * Nothing is lost when the server dies: a `pdfrender serve` process with 30 queued jobs is killed
 * with SIGKILL mid-render, started again on the same data dir, and every job reaches a final state
 * with its webhook delivered. Also the delivery log and redelivery from the command line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { browsersOf, remainingAfter } from './support/chromium-processes.js';
import { pdfrender, startServe } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

/** Run the CLI and answer its standard output (failing the test on a non-zero exit). */
async function cli(args: string[]): Promise<string> {
  const run = await pdfrender(args);
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.toString();
}

const serve = (dataDir: string) => startServe(['--data-dir', dataDir, '--concurrency', '2', '--allow-private-webhooks']);

describe('crash safety', () => {
  it('delivers every job of a server killed with SIGKILL mid-render, after a restart', async () => {
    const events = new Map<string, { type: string; webhookId: string }[]>();
    const receiver = createServer((req, res) => {
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
    await cli(['webhooks', 'add', `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, '--data-dir', dataDir, '--allow-private-webhooks']);

    const first = await serve(dataDir);
    // Each document keeps its renderer busy for 200 ms, so the kill lands mid-render.
    const slow = '<script>const end = Date.now() + 200; while (Date.now() < end) {}</script><p>job</p>';
    for (let i = 0; i < 30; i += 1) {
      const response = await fetch(`${first.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: slow, identifier: `job-${i}` }),
      });
      expect(response.status).toBe(202);
    }
    await new Promise((r) => setTimeout(r, 1500));
    const profiles = [...browsersOf(first.child.pid!).values()];
    expect(profiles).toHaveLength(1);
    first.child.kill('SIGKILL');
    await first.exited;
    // The killed server's browser quits with it (its DevTools pipe closes): nothing of it remains.
    expect(await remainingAfter(profiles[0]!, 5_000)).toEqual([]);
    const beforeRestart = events.size;
    expect(beforeRestart).toBeLessThan(30);

    const second = await serve(dataDir);
    try {
      const deadline = Date.now() + 60_000;
      while (events.size < 30 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      expect([...events.keys()].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `job-${i}`).sort());
      for (const list of events.values()) expect(list.every((event) => event.type === 'PDF_RENDERED')).toBe(true);

      // The delivery log and a redelivery, from the command line, while the server runs. An attempt
      // the killed server had in flight (its receiver may have answered) is sent again once its
      // hold runs out (request timeout + 5 s), so the log may need that long to settle.
      const readLog = async () =>
        JSON.parse(await cli(['webhooks', 'deliveries', '--json', '--limit', '100', '--data-dir', dataDir])) as Array<{ jobId: string; status: string }>;
      let log = await readLog();
      while (log.some((entry) => entry.status === 'pending') && Date.now() < deadline + 30_000) {
        await new Promise((r) => setTimeout(r, 1_000));
        log = await readLog();
      }
      expect(log.length).toBeGreaterThanOrEqual(30);
      expect(log.filter((entry) => entry.status !== 'delivered')).toEqual([]);
      expect((await cli(['webhooks', 'deliveries', '--failed', '--data-dir', dataDir])).trim()).toBe('no failed deliveries');
      const status = await (await fetch(`${second.url}/api/pdfs/jobs/${log[0]!.jobId}`)).json();
      const before = events.get(status.identifier)!.length;
      expect((await cli(['webhooks', 'redeliver', log[0]!.jobId, '--data-dir', dataDir])).trim()).toBe(`queued 1 delivery of ${log[0]!.jobId} again`);
      const until = Date.now() + 10_000;
      while (events.get(status.identifier)!.length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
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
