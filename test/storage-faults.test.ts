/**
 * Storage that disappears or fills up under a running `pdfrender serve` process: a data dir deleted
 * or replaced, a disk that fills up (a real tmpfs, as root) and is freed again, and files left
 * without a row. Nothing acknowledged is lost, nothing is acknowledged that cannot be kept, and
 * every refusal is a documented status.
 */
import { mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { startServe, type ServeProcess } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { receiver, waitForArrivals, type Receiver } from './support/receiver.js';
import { fillUp, isRoot, mountTmpfs, unmount } from './support/storage.js';
import { until } from './support/wait.js';

/** `pdfrender webhooks add` in this process: it only writes the data dir. */
const pdfrender = inProcessCli();

afterAll(async () => {
  await pdfrender.close();
  await removeTempDirs();
});

const post = (
  serve: ServeProcess,
  route: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  fetch(`${serve.url}${route}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function addWebhook(dataDir: string, hook: Receiver): Promise<void> {
  const added = await pdfrender.run(['webhooks', 'add', hook.url, '--data-dir', dataDir, '--allow-private-webhooks']);
  expect(added.code, added.stderr).toBe(0);
}

const serveOn = (dataDir: string) =>
  startServe(['--data-dir', dataDir, '--allow-private-webhooks', '--concurrency', '1']);

async function stop(serve: ServeProcess): Promise<void> {
  serve.child.kill('SIGTERM');
  await serve.exited;
}

describe('a data dir deleted or replaced under a running server', () => {
  it('answers 503 STORAGE_UNAVAILABLE, is not ready, acknowledges nothing, and opens what is there after a restart', async () => {
    const hook = await receiver();
    const dataDir = join(await tempDir(), 'data');
    await addWebhook(dataDir, hook);
    let serve = await serveOn(dataDir);
    try {
      expect(
        (await post(serve, '/api/pdfs/render-async', { htmlContent: '<p>before</p>', identifier: 'before' })).status,
      ).toBe(202);
      expect(await waitForArrivals(hook, 1, 30_000)).toHaveLength(1);

      rmSync(dataDir, { recursive: true });
      const answers = [];
      for (let i = 0; i < 10; i += 1) {
        const response = await post(serve, '/api/pdfs/render-async', {
          htmlContent: '<p>after</p>',
          identifier: `after-${i}`,
        });
        answers.push([response.status, response.headers.get('retry-after'), (await response.json()).outcome]);
      }
      expect(answers).toEqual(Array.from({ length: 10 }, () => [503, '30', 'STORAGE_UNAVAILABLE']));
      const sync = await post(serve, '/api/pdfs/render-sync', { htmlContent: '<p>sync</p>' });
      expect([sync.status, (await sync.json()).outcome]).toEqual([503, 'STORAGE_UNAVAILABLE']);
      expect((await post(serve, '/api/webhooks', { url: hook.url })).status).toBe(503);
      const ready = await fetch(`${serve.url}/readyz`);
      expect(ready.status).toBe(503);
      expect((await ready.json()).reasons.storage).toMatch(
        /^STORAGE_UNAVAILABLE: (pdfrender\.db|files\/) was deleted$/,
      );
      expect((await fetch(`${serve.url}/healthz`)).status).toBe(200);

      // Replaced: a new data dir at the same path, with its own database, is not the one it opened.
      await addWebhook(dataDir, hook);
      const replaced = await fetch(`${serve.url}/readyz`);
      expect((await replaced.json()).reasons.storage).toMatch(/^STORAGE_UNAVAILABLE: pdfrender\.db was replaced/);
      expect(
        (await post(serve, '/api/pdfs/render-async', { htmlContent: '<p>x</p>', identifier: 'replaced' })).status,
      ).toBe(503);
      // Said once in the log, naming the data dir.
      expect(serve.stderr().match(/storage unavailable: /g)).toHaveLength(1);
      expect(serve.stderr()).toContain(`(data dir ${dataDir})`);

      // After a restart it opens what is there now, and works.
      await stop(serve);
      serve = await serveOn(dataDir);
      expect((await fetch(`${serve.url}/readyz`)).status).toBe(200);
      expect(
        (await post(serve, '/api/pdfs/render-async', { htmlContent: '<p>after restart</p>', identifier: 'restarted' }))
          .status,
      ).toBe(202);
      const events = (await waitForArrivals(hook, 2, 30_000)).map((arrival) => JSON.parse(arrival.body).payload.id);
      expect(events).toEqual(['before', 'restarted']);
    } finally {
      await stop(serve);
      hook.close();
    }
  }, 90_000);
});

describe('a full disk', () => {
  // Mounting a small tmpfs needs root; CI runs the tests as root.
  it.skipIf(!isRoot)(
    'answers 507 STORAGE_FULL, is not ready, keeps every job without spending attempts, and recovers by itself',
    async () => {
      const hook = await receiver();
      const dataDir = await tempDir();
      mountTmpfs(dataDir, '16m');
      let serve: ServeProcess | undefined;
      let free: (() => void) | undefined;
      try {
        await addWebhook(dataDir, hook);
        serve = await serveOn(dataDir);
        const server = serve;
        // Jobs that hold their page for 400 ms, so that some are in flight when the disk fills up.
        const jobIds: string[] = [];
        for (let i = 0; i < 4; i += 1) {
          const response = await post(server, '/api/pdfs/render-async', {
            htmlContent: `<p>job ${i}</p>`,
            waitDelay: 400,
            identifier: `job-${i}`,
          });
          expect(response.status).toBe(202);
          jobIds.push((await response.json()).jobId);
        }
        free = fillUp(dataDir);

        const sync = await post(server, '/api/pdfs/render-sync', { htmlContent: '<p>sync</p>' });
        expect([sync.status, sync.headers.get('retry-after'), (await sync.json()).outcome]).toEqual([
          507,
          '30',
          'STORAGE_FULL',
        ]);
        const refused = await post(server, '/api/pdfs/render-async', {
          htmlContent: '<p>refused</p>',
          identifier: 'refused',
        });
        expect([refused.status, (await refused.json()).outcome]).toEqual([507, 'STORAGE_FULL']);
        const ready = await fetch(`${server.url}/readyz`);
        expect(ready.status).toBe(503);
        expect((await ready.json()).reasons.storage).toMatch(/^STORAGE_FULL: /);
        // Every job in flight (one rendering, one waiting for the page behind it) met the full disk when
        // storing its PDF, said so, and holds its job until the write that gives it back can land.
        const metFullDisk = (jobId: string) =>
          server
            .stderr()
            .includes(`its PDF could not be stored (STORAGE_FULL); the attempt does not count (job ${jobId} `);
        await until(async () => {
          const jobs = await Promise.all(
            jobIds.map(
              async (jobId) =>
                (await (await fetch(`${server.url}/api/pdfs/jobs/${jobId}`)).json()) as { status: string },
            ),
          );
          const inFlight = jobIds.filter((_, i) => jobs[i]!.status === 'rendering');
          return jobIds.some(metFullDisk) && inFlight.every(metFullDisk);
        }, 'every job in flight to meet the full disk');
        // Full for a while longer: the workers wait, quietly. What they do then (the write giving a job
        // back tried again after 0.5 s and 1 s more, an idle loop looking at the storage each second)
        // leaves no trace by design, so the window is the server's: it lasts until the server has
        // answered a /readyz (a look at the storage of its own) asked two seconds after every job in
        // flight met the disk. A server too slow to have run those timers by then cannot have answered
        // it either: a /readyz takes its event loop several turns, and each turn first runs the timers due.
        const quietFrom = server.stderr().length;
        const windowStart = Date.now();
        await until(async () => {
          const askedAt = Date.now();
          expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
          return askedAt - windowStart >= 2_000;
        }, 'a /readyz asked two seconds into the full disk');
        expect(server.stderr().slice(quietFrom)).not.toMatch(/ (ERROR|WARN) /);
        expect(server.stderr().match(/ ERROR /g)).toHaveLength(1);
        expect(server.stderr()).toMatch(/ERROR storage full: .* \(data dir /);

        free();
        const freedAt = Date.now();
        await until(async () => (await fetch(`${server.url}/readyz`)).status === 200, 'ready again');
        const readyAfterMs = Date.now() - freedAt;
        expect(await waitForArrivals(hook, 4, 30_000)).toHaveLength(4);
        const deliveredAfterMs = Date.now() - freedAt;
        console.log(
          `disk full: ready ${readyAfterMs} ms after space was freed, all 4 jobs delivered after ${deliveredAfterMs} ms`,
        );

        const events = hook.received.map((arrival) => JSON.parse(arrival.body));
        expect(events.map((event) => `${event.type} ${event.payload.id}`).sort()).toEqual(
          ['job-0', 'job-1', 'job-2', 'job-3'].map((id) => `PDF_RENDERED ${id}`),
        );
        for (const jobId of jobIds)
          expect(await (await fetch(`${server.url}/api/pdfs/jobs/${jobId}`)).json()).toMatchObject({
            status: 'succeeded',
            attempts: 1,
          });
        const after = await post(
          server,
          '/api/pdfs/render-sync',
          { htmlContent: '<p>after the disk was freed</p>' },
          { Accept: 'application/pdf' },
        );
        expect(after.status).toBe(200);
        expect((await readPdf(new Uint8Array(await after.arrayBuffer()))).pages[0]!.text).toContain(
          'after the disk was freed',
        );

        // Every PDF on disk has its row and every row its PDF: nothing orphaned, no temporary file left.
        const db = new Database(join(dataDir, 'pdfrender.db'), { readonly: true });
        const rows = (db.prepare('SELECT id FROM files').all() as Array<{ id: string }>)
          .map((row) => `${row.id}.pdf`)
          .sort();
        db.close();
        expect(readdirSync(join(dataDir, 'files')).sort()).toEqual(rows);
        expect(rows).toHaveLength(5);
      } finally {
        // Freed first: a server stopping on a full disk holds its jobs for the whole shutdown grace.
        free?.();
        if (serve) await stop(serve);
        hook.close();
        unmount(dataDir);
      }
    },
    120_000,
  );
});

describe('files without a row', () => {
  it('are swept once an hour old, as are temporary files a crash left, and nothing else', async () => {
    const dataDir = await tempDir();
    const files = join(dataDir, 'files');
    mkdirSync(files);
    const hourAndMinuteAgo = new Date(Date.now() - 61 * 60_000);
    const orphan = join(files, 'AAAAAAAAAAAAAAAAAAAAAA.pdf');
    const temporary = join(files, '.BBBBBBBBBBBBBBBBBBBBBB.pdf.0a1b2c3d4e5f.tmp');
    const young = join(files, 'CCCCCCCCCCCCCCCCCCCCCC.pdf');
    const foreign = join(files, 'notes.txt');
    for (const path of [orphan, temporary, young, foreign]) writeFileSync(path, '%PDF-1.4');
    for (const path of [orphan, temporary, foreign]) utimesSync(path, hourAndMinuteAgo, hourAndMinuteAgo);
    const serve = await serveOn(dataDir);
    try {
      const rendered = await (await post(serve, '/api/pdfs/render-sync', { htmlContent: '<p>kept</p>' })).json();
      expect(readdirSync(files).sort()).toEqual(
        [`${rendered.fileUrl.split('/').pop()}.pdf`, 'CCCCCCCCCCCCCCCCCCCCCC.pdf', 'notes.txt'].sort(),
      );
    } finally {
      await stop(serve);
    }
  }, 60_000);
});
