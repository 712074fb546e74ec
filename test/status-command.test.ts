/**
 * `pdfrender status` (issue 32 §4), run as a user runs it (the built CLI, a child process) on a data
 * dir the store filled and on a throw-away PostgreSQL database: the queue's depth by priority and
 * the age of its oldest job, failures by code within --since, each endpoint's deliveries with its
 * last error, --json, the error without a data dir, colour only when asked for or on a terminal,
 * and never an endpoint's key or secret. Times are set in the past through the store's `now`.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { webhookEvent } from '../src/server/api/job-event.js';
import type { Store, WebhookEndpoint } from '../src/store/contract.js';
import { migratePostgres } from '../src/store/postgres/migrate.js';
import { postgresStore } from '../src/store/postgres/postgres-store.js';
import { openDb } from '../src/store/sqlite/open-db.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { pdfrender } from './support/cli.js';
import { enqueueInput } from './support/enqueue-input.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { emptyDatabase, poolOn, stopPostgres } from './support/store-backends.js';

afterAll(async () => {
  await stopPostgres();
  await removeTempDirs();
});

/**
 * Fill `store` as of `now`: a failure 2 h ago and one 50 s ago (RENDER_PDF_FAILED), jobs queued at
 * priority 5 (3 m 12 s ago) and 0 (30 s ago), and an endpoint that got both failures' events: one
 * delivered, one whose attempt the receiver answered 500.
 */
async function fill(store: Store, now: number): Promise<WebhookEndpoint> {
  const endpoint = await store.webhooks.add('https://example.com/hook', now - 10_000_000);
  for (const [at, message] of [
    [now - 7_200_000, 'an old failure'],
    [now - 60_000, 'the page threw'],
  ] as const) {
    const job = await store.queue.enqueue(enqueueInput({ priority: 9, now: at }));
    expect((await store.queue.claim('w', at, 60_000))!.id).toBe(job.id);
    await store.queue.fail(job.id, 'w', at + 10_000, { code: 'RENDER_PDF_FAILED', message }, null);
  }
  await store.queue.enqueue(enqueueInput({ priority: 5, now: now - 192_000 }));
  await store.queue.enqueue(enqueueInput({ priority: 0, now: now - 30_000 }));
  const [older, newer] = await store.deliveries.claim(now - 40_000, 10, 1_000);
  await store.deliveries.succeeded(older!.id, 200, now - 40_000);
  await store.deliveries.failed(newer!, 500, 'the receiver answered 500', now - 40_000);
  return endpoint;
}

/** `pdfrender status ...args` in `cwd`, with its standard output as text. */
async function status(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const run = await pdfrender(['status', ...args], { cwd, env });
  return { ...run, stdout: run.stdout.toString() };
}

/** What both backends show for `fill`, read through the CLI run with `where` (--data-dir or --database). */
async function expectFilledStatus(where: string[], cwd: string, endpoint: WebhookEndpoint) {
  const text = await status(where, cwd);
  expect(text.stderr).toBe('');
  expect(text.code).toBe(0);
  expect(text.stdout).toMatch(/^ {2}priority 5: 1 queued, 1 ready, oldest 3 m \d+ s$/m);
  expect(text.stdout).toMatch(/^ {2}priority 0: 1 queued, 1 ready, oldest \d+ s$/m);
  expect(text.stdout).toMatch(/^ {2}in all: 2 queued, 2 ready, oldest 3 m \d+ s$/m);
  expect(text.stdout).toContain('\n  rendering: 0\n');
  // Ages by the clock at the run (3 m 12 s and more): the patterns leave room for a slow machine.
  // The default window is the last hour: the failure of 2 h ago is not in it.
  expect(text.stdout).toMatch(
    /^failures in the last 1 h\n {2}RENDER_PDF_FAILED: 1, last (\d+ s|1 m \d+ s) ago: the page threw$/m,
  );
  expect(text.stdout).toContain(`  ${endpoint.id}  https://example.com/hook  no key  active\n`);
  expect(text.stdout).toMatch(/^ {4}1 pending \(oldest (\d+ s|1 m \d+ s)\), 0 held, 0 failed, 1 delivered$/m);
  expect(text.stdout).toContain('    last error: HTTP 500, the receiver answered 500\n');
  expect(text.stdout).not.toContain('\x1b[');

  const json = await status([...where, '--json', '--since', '3h'], cwd);
  expect(json.code).toBe(0);
  const report = JSON.parse(json.stdout);
  expect(report.queue).toMatchObject({ queued: 2, ready: 2, rendering: 0 });
  expect(report.queue.byPriority.map((p: { priority: number }) => p.priority)).toEqual([5, 0]);
  expect(report.queue.oldestAgeMs).toBeGreaterThanOrEqual(192_000);
  expect(report.failures).toMatchObject({ sinceMs: 3 * 3_600_000 });
  expect(report.failures.byCode).toEqual([
    { code: 'RENDER_PDF_FAILED', count: 2, lastAt: expect.any(Number), lastError: 'the page threw' },
  ]);
  expect(report.webhooks).toEqual([
    expect.objectContaining({
      id: endpoint.id,
      url: 'https://example.com/hook',
      pending: 1,
      held: 0,
      failed: 0,
      delivered: 1,
      lastStatus: 500,
      lastError: 'the receiver answered 500',
    }),
  ]);
  expect(Object.keys(report.webhooks[0])).not.toContain('key');
  expect(Object.keys(report.webhooks[0])).not.toContain('secret');
  for (const output of [text.stdout, text.stderr, json.stdout, json.stderr]) {
    expect(output).not.toContain(endpoint.key);
    expect(output).not.toContain(endpoint.secret);
  }
}

describe('pdfrender status', () => {
  it('shows a data dir: the queue by priority with its oldest job, failures by code, endpoints and their deliveries', async () => {
    const dataDir = await tempDir();
    const db = openDb(join(dataDir, 'pdfrender.db'));
    const endpoint = await fill(sqliteStore(db, webhookEvent), Date.now());
    db.close();
    await expectFilledStatus(['--data-dir', dataDir], dataDir, endpoint);
    // The data dir as serve finds it, by the environment too.
    const byEnv = await status([], await tempDir(), { PDFRENDER_DATA_DIR: dataDir });
    expect(byEnv.stdout).toMatch(/priority 5: 1 queued/);
    // Colour only when asked for (or on a terminal: `support/cli.ts` runs without one).
    const coloured = await status(['--data-dir', dataDir, '--color'], dataDir, { NO_COLOR: undefined });
    expect(coloured.stdout).toContain('\x1b[1mqueue');
    expect(coloured.stdout).toContain('\x1b[31mRENDER_PDF_FAILED');
    const plain = await status(['--data-dir', dataDir], dataDir, { NO_COLOR: undefined });
    expect(plain.stdout).not.toContain('\x1b[');
  });

  it('shows an empty store as such, and a bad --since by its flag', async () => {
    const dataDir = await tempDir();
    openDb(join(dataDir, 'pdfrender.db')).close();
    const empty = await status(['--data-dir', dataDir], dataDir);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toMatch(
      /^queue \(at [\d-]+T[\d:.]+Z\)\n {2}no jobs queued\n {2}rendering: 0\n\nfailures in the last 1 h\n {2}none\n\nwebhook endpoints\n {2}none\n$/,
    );
    const bad = await status(['--data-dir', dataDir, '--since', 'soon'], dataDir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--since: must be a positive amount such as "1h"');
  });

  it('refuses a folder with no data dir, naming it, and makes none', async () => {
    const empty = await tempDir();
    const run = await status([], empty);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`no pdfrender data dir in ${empty} `);
    expect(run.stderr).toContain('--data-dir <dir>');
    expect(run.stdout).toBe('');
    expect(await readdir(empty)).toEqual([]);
  });

  it('shows a PostgreSQL database every instance shares, named by --database', async () => {
    const url = await emptyDatabase();
    const pool = poolOn(url);
    await migratePostgres(pool);
    const endpoint = await fill(postgresStore(pool, webhookEvent), Date.now());
    const cwd = await tempDir();
    await expectFilledStatus(['--database', url], cwd, endpoint);
    expect(await readdir(cwd)).toEqual([]);
  });
});
