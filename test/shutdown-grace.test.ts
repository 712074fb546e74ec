/**
 * --shutdown-grace bounds the async renders too: a `pdfrender serve` sent SIGTERM while an async
 * job's document is held at a loopback gate exits once the grace has run out, without waiting for
 * the render, and hands the job back to the queue without spending its attempt; another instance
 * (PostgreSQL) or the next start on the same data dir (SQLite) renders it. The gate stays closed
 * until the stopped process has exited, so no wall-clock bound is asserted: a process that waited
 * for its render would not exit before the render's deadline (--timeout, 30 s), and the test says
 * so after a generous 20 s.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { databasePath } from '../src/store/open-store.js';
import { openDb } from '../src/store/sqlite/open-db.js';
import { startServe, type ServeProcess } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import {
  eventOf,
  jobStatus,
  onInstance,
  renderAsync,
  startDeployment,
  startInstances,
  type Deployment,
} from './support/instances.js';
import { readPdf } from './support/pdf.js';
import { receiver } from './support/receiver.js';
import { until } from './support/wait.js';

/** --allow-host: the documents load the test's loopback gate. */
const args = ['--allow-host', '127.0.0.1', '--shutdown-grace', '1s'];

/** SIGTERM `instance` and answer its exit code, or fail if it has not exited within 20 s (it is waiting for a render held at the gate). */
async function stopWhileHeld(instance: ServeProcess): Promise<number | null> {
  const sent = performance.now();
  instance.child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const held = new Promise<'held'>((resolve) => (timer = setTimeout(resolve, 20_000, 'held')));
  const exit = await Promise.race([instance.exited, held]).finally(() => clearTimeout(timer));
  if (exit === 'held')
    throw new Error(
      'the instance did not exit while its render was held at the gate: it waits for its async jobs past --shutdown-grace',
    );
  // Told, not asserted: the grace (1 s) and the way out.
  console.log(`exited ${Math.round(performance.now() - sent)} ms after SIGTERM (--shutdown-grace 1s)`);
  return exit;
}

/** A byte a second while held: the proxy would otherwise drop the silent request after 15 s, and the render go on without its image. */
const held = { trickleMs: 1_000 };

const handedBack =
  /shutdown grace ran out: 1 async job\(s\) still rendering went back to the queue \(for another instance or the next start\), their attempts not counted\n/;

describe('--shutdown-grace with an async job rendering', () => {
  let deployment: Deployment | undefined;
  /** `pdfrender webhooks add` in this process (it only writes the data dir). */
  const cli = inProcessCli();
  afterAll(async () => {
    await deployment?.stop();
    await cli.close();
    await removeTempDirs();
  }, 60_000);

  it('PostgreSQL: the stopping instance exits within its grace and another renders the job it handed back, attempt not counted', async () => {
    deployment = await startDeployment('grace', 1, args);
    const { db, hook, instances } = deployment;
    const a = instances[0]!;
    const gate = await startGate(held);
    try {
      const queued = await renderAsync(a.url, {
        htmlContent: `${gate.document()}<p>handed back</p>`,
        identifier: 'held',
      });
      expect(queued.status).toBe(202);
      const jobId = queued.body.jobId!;
      await gate.reached(1);
      // A is the only instance yet: the job it renders is its own.
      const { rows: claimed } = await db.query<{ status: string; worker: string }>(
        "SELECT status, split_part(claimed_by, '.', 1) AS worker FROM jobs WHERE id = $1",
        [jobId],
      );
      expect(claimed).toEqual([{ status: 'rendering', worker: expect.stringMatching(/^w_/) }]);
      const workerA = claimed[0]!.worker;
      // B is up before A stops, so the job goes to it as soon as A hands it back.
      const [b] = await startInstances(1, deployment.database, args);
      instances.push(b!);

      expect(await stopWhileHeld(a)).toBe(0);
      expect(a.stderr()).toMatch(handedBack);
      expect(a.stderr()).toContain('pdfrender: stopped');
      // Back in the queue with its attempt given back, or already B's on its first counted attempt.
      const { rows: after } = await db.query<{ status: string; attempts: number; worker: string }>(
        "SELECT status, attempts::int AS attempts, split_part(coalesce(claimed_by, ''), '.', 1) AS worker FROM jobs WHERE id = $1",
        [jobId],
      );
      expect([
        { status: 'queued', attempts: 0, worker: '' },
        { status: 'rendering', attempts: 1, worker: expect.not.stringMatching(workerA) },
      ]).toContainEqual(after[0]);

      // B takes it (its document reaches the gate again), and finishes it once the gate opens.
      await gate.reached(2);
      gate.open();
      await until(() => hook.received.length > 0, 'the webhook of the job');
      await deployment.settled();
      expect(hook.received.map(eventOf)).toEqual([
        { type: 'PDF_RENDERED', payload: expect.objectContaining({ id: 'held', jobId }) },
      ]);
      const status = await jobStatus(b!.url, jobId);
      expect(status).toMatchObject({ status: 'succeeded', attempts: 1 });
      const { rows: finished } = await db.query<{ worker: string }>(
        "SELECT split_part(claimed_by, '.', 1) AS worker FROM jobs WHERE id = $1",
        [jobId],
      );
      expect(finished[0]!.worker).not.toBe(workerA);
      const pdf = await readPdf(new Uint8Array(await (await fetch(onInstance(status.fileUrl!, b!.url))).arrayBuffer()));
      expect(pdf.pages[0]!.text).toContain('handed back');
    } finally {
      gate.open();
      gate.close();
    }
  }, 90_000);

  it('SQLite: the stopped server exits within its grace, and the next start on its data dir renders the job on its first counted attempt', async () => {
    const dataDir = await tempDir();
    const [gate, hook] = await Promise.all([startGate(held), receiver()]);
    const added = await cli.run(['webhooks', 'add', hook.url, '--data-dir', dataDir, '--allow-private-webhooks']);
    expect(added.code, added.stderr).toBe(0);
    const serveArgs = ['--data-dir', dataDir, '--allow-private-webhooks', ...args];
    let first: ServeProcess | undefined;
    let second: ServeProcess | undefined;
    try {
      first = await startServe(serveArgs);
      const queued = await renderAsync(first.url, {
        htmlContent: `${gate.document()}<p>after a restart</p>`,
        identifier: 'restart',
      });
      expect(queued.status).toBe(202);
      const jobId = queued.body.jobId!;
      await gate.reached(1);

      expect(await stopWhileHeld(first)).toBe(0);
      expect(first.stderr()).toMatch(handedBack);
      const db = openDb(databasePath(dataDir));
      try {
        expect(
          db.prepare('SELECT status, attempts, claimed_by AS claimedBy FROM jobs WHERE id = ?').get(jobId),
        ).toEqual({
          status: 'queued',
          attempts: 0,
          claimedBy: null,
        });
        // A render that never finished left no file behind.
        expect(db.prepare('SELECT count(*) AS n FROM files').get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }

      second = await startServe(serveArgs);
      await gate.reached(2);
      gate.open();
      const status = await until(async () => {
        const read = await jobStatus(second!.url, jobId);
        return read.status !== 'queued' && read.status !== 'rendering' && read;
      }, 'the job to finish');
      expect(status).toMatchObject({ status: 'succeeded', attempts: 1 });
      // Its URL names the address the first server was asked on (no --public-url): the same path on the second.
      const pdf = await readPdf(
        new Uint8Array(await (await fetch(onInstance(status.fileUrl!, second.url))).arrayBuffer()),
      );
      expect(pdf.pages[0]!.text).toContain('after a restart');
      await until(() => hook.received.length > 0, 'the webhook of the job');
      expect(hook.received.map(eventOf)).toEqual([
        { type: 'PDF_RENDERED', payload: expect.objectContaining({ id: 'restart', jobId }) },
      ]);
    } finally {
      gate.open();
      gate.close();
      hook.close();
      for (const server of [first, second]) {
        server?.child.kill('SIGTERM');
        await server?.exited;
      }
    }
  }, 60_000);

  it('a job that finishes within the grace completes as usual, its webhook sent before the exit, not handed back', async () => {
    const dataDir = await tempDir();
    const [gate, hook] = await Promise.all([startGate(held), receiver()]);
    const added = await cli.run(['webhooks', 'add', hook.url, '--data-dir', dataDir, '--allow-private-webhooks']);
    expect(added.code, added.stderr).toBe(0);
    const server = await startServe([
      '--data-dir',
      dataDir,
      '--allow-private-webhooks',
      '--allow-host',
      '127.0.0.1',
      '--shutdown-grace',
      '30s',
    ]);
    try {
      const queued = await renderAsync(server.url, {
        htmlContent: `${gate.document()}<p>within the grace</p>`,
        identifier: 'within',
      });
      expect(queued.status).toBe(202);
      await gate.reached(1);
      server.child.kill('SIGTERM');
      await until(() => server.stderr().includes('pdfrender: shutting down'), 'the shutdown line');
      gate.open();
      expect(await server.exited).toBe(0);
      expect(server.stderr()).not.toContain('shutdown grace ran out');
      // The sender may finish its delivery within what is left of the grace.
      expect(hook.received.map(eventOf)).toEqual([
        { type: 'PDF_RENDERED', payload: expect.objectContaining({ id: 'within', jobId: queued.body.jobId }) },
      ]);
      const db = openDb(databasePath(dataDir));
      try {
        expect(db.prepare('SELECT status, attempts FROM jobs WHERE id = ?').get(queued.body.jobId)).toEqual({
          status: 'succeeded',
          attempts: 1,
        });
        expect(db.prepare('SELECT count(*) AS n FROM files').get()).toEqual({ n: 1 });
      } finally {
        db.close();
      }
    } finally {
      gate.open();
      gate.close();
      hook.close();
      server.child.kill('SIGTERM');
      await server.exited;
    }
  }, 60_000);
});
