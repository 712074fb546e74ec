/**
 * A busy database must not freeze the server: while another process (node + better-sqlite3) holds
 * the data dir's SQLite write lock, a `pdfrender serve` process keeps answering /healthz, renders in
 * flight go on, and writes wait without blocking; what it accepts is kept. A lock that outlasts
 * --busy-timeout gets a documented 503, never a 500 or a hang.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { receiver, waitForArrivals } from './support/receiver.js';
import { holdWriteLock } from './support/storage.js';

/** `pdfrender webhooks add` in this process: it only writes the data dir. */
const pdfrender = inProcessCli();

afterAll(async () => {
  await pdfrender.close();
  await removeTempDirs();
});

const post = (
  serve: ServeProcess,
  route: 'render-sync' | 'render-async',
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  fetch(`${serve.url}/api/pdfs/${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** A data dir with a webhook endpoint pointing at `url`, and a server on it. */
async function serveWithWebhook(url: string, extra: string[] = []): Promise<{ dataDir: string; serve: ServeProcess }> {
  const dataDir = await tempDir();
  const added = await pdfrender.run(['webhooks', 'add', url, '--data-dir', dataDir, '--allow-private-webhooks']);
  expect(added.code, added.stderr).toBe(0);
  return {
    dataDir,
    serve: await startServe(['--data-dir', dataDir, '--allow-private-webhooks', '--concurrency', '1', ...extra]),
  };
}

async function stop(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGTERM');
  await serve.exited;
}

describe('another process holds the write lock', () => {
  it('keeps answering, lets renders in flight finish and keeps what it accepted', async () => {
    const hook = await receiver();
    // The async job renders until the test opens its gate (on loopback, which --allow-host lets it reach).
    const gate = await startGate();
    const { dataDir, serve } = await serveWithWebhook(hook.url, ['--allow-host', '127.0.0.1']);
    try {
      // An async job rendering when the lock is taken, and a sync render sent just before it (waiting
      // for the one page, which the async job holds until the gate opens).
      const before = await (
        await post(serve, 'render-async', {
          htmlContent: `${gate.document()}<p>async in flight</p>`,
          identifier: 'before-lock',
        })
      ).json();
      const jobStatus = async (jobId: string) =>
        (await (await fetch(`${serve.url}/api/pdfs/jobs/${jobId}`)).json()) as { status: string; attempts: number };
      await gate.reached(1);
      expect((await jobStatus(before.jobId)).status).toBe('rendering');
      const sync = post(serve, 'render-sync', { htmlContent: '<p>sync in flight</p>' }, { Accept: 'application/pdf' });

      const lock = await holdWriteLock(join(dataDir, 'pdfrender.db'));
      const during = post(serve, 'render-async', {
        htmlContent: '<p>queued during the lock</p>',
        identifier: 'during-lock',
      });
      // All of these answer while the holder still holds the lock: it lets go only when told, below.
      for (let i = 0; i < 20; i += 1) expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);
      expect((await jobStatus(before.jobId)).status).toBe('rendering');
      const ready = await fetch(`${serve.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).reasons.database).toMatch(/^DATABASE_BUSY: /);
      await lock.release();
      gate.open();

      const accepted = await during;
      expect(accepted.status).toBe(202);
      const { jobId } = await accepted.json();
      const rendered = await sync;
      expect(rendered.status).toBe(200);
      expect((await readPdf(new Uint8Array(await rendered.arrayBuffer()))).pages[0]!.text).toContain('sync in flight');

      const deliveries = await waitForArrivals(hook, 2, 30_000);
      const events = deliveries.map((delivery) => JSON.parse(delivery.body));
      expect(events.map((event) => event.payload.id).sort()).toEqual(['before-lock', 'during-lock']);
      expect(events.every((event) => event.type === 'PDF_RENDERED')).toBe(true);
      for (const id of [before.jobId, jobId])
        expect(await jobStatus(id)).toMatchObject({ status: 'succeeded', attempts: 1 });
      // Waiting for the lock (shorter than --busy-timeout) was no error: no ERROR line in the log.
      expect(serve.stderr()).not.toMatch(/ ERROR /);
    } finally {
      await stop(serve);
      gate.close();
      hook.close();
    }
  }, 90_000);

  it('answers 503 DATABASE_BUSY, with Retry-After, when the lock outlasts --busy-timeout, and keeps nothing of it', async () => {
    const hook = await receiver();
    const { dataDir, serve } = await serveWithWebhook(hook.url, ['--busy-timeout', '1s']);
    try {
      const lock = await holdWriteLock(join(dataDir, 'pdfrender.db'));
      // Sent together, each waits out --busy-timeout on its own.
      const [refused, sync, healthy] = await Promise.all([
        post(serve, 'render-async', { htmlContent: '<p>refused</p>', identifier: 'busy' }),
        post(serve, 'render-sync', { htmlContent: '<p>refused</p>' }),
        fetch(`${serve.url}/healthz`),
      ]);
      await lock.release();
      expect([refused.status, refused.headers.get('retry-after'), (await refused.json()).outcome]).toEqual([
        503,
        '5',
        'DATABASE_BUSY',
      ]);
      expect([sync.status, (await sync.json()).outcome]).toEqual([503, 'DATABASE_BUSY']);
      expect(healthy.status).toBe(200);
      // The refused job was not kept: its identifier is free, and only the second send is rendered.
      const again = await post(serve, 'render-async', {
        htmlContent: '<p>accepted after the lock</p>',
        identifier: 'busy',
      });
      expect(again.status).toBe(202);
      const [delivery] = await waitForArrivals(hook, 1, 30_000);
      expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'PDF_RENDERED', payload: { id: 'busy' } });
    } finally {
      await stop(serve);
      hook.close();
    }
  }, 60_000);
});
