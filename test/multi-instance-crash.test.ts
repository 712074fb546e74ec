/**
 * An instance dies mid-queue among three on one PostgreSQL: its jobs are held at a loopback gate
 * (in flight) when it is killed with SIGKILL; the others re-claim them once its lease (--job-lease,
 * 3 s here: the fault, not the default, is under test) has run out and finish them, and every job's webhook is sent once. Then a stale holder: an instance
 * paused (SIGSTOP) past its lease resumes after another finished its jobs, renders them again and
 * is refused their completion (fencing), so no job sends a second event, and drops its PDFs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateOf } from './support/chromium-processes.js';
import type { ServeProcess } from './support/cli.js';
import { startGate } from './support/gate.js';
import {
  eventOf,
  identifiersAt,
  jobStatus,
  onInstance,
  renderAsync,
  startDeployment,
  type Deployment,
} from './support/instances.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

let deployment: Deployment;
/** The instances' lease: short, so a dead or paused holder's jobs come back soon (heartbeats every second). */
const leaseMs = 3_000;

// Documents wait at a loopback gate, so jobs are in flight when an instance dies.
beforeAll(async () => {
  deployment = await startDeployment('crash', 3, ['--allow-host', '127.0.0.1', '--job-lease', `${leaseMs}ms`]);
}, 120_000);
afterAll(() => deployment?.stop(), 60_000);

interface Held {
  id: string;
  identifier: string;
  worker: string;
  /** How long its lease has left, by the database's clock (the instances'). */
  leftMs: number;
}

/** Jobs being rendered now, with the worker (one per instance) holding each. */
async function rendering(): Promise<Held[]> {
  const { rows } = await deployment.db.query<Held>(
    `SELECT id, identifier, split_part(claimed_by, '.', 1) AS worker, (lease_until - extract(epoch from clock_timestamp()) * 1000)::float8 AS "leftMs"
     FROM jobs WHERE status = 'rendering' ORDER BY seq`,
  );
  return rows;
}

/**
 * Pause `instance` (SIGSTOP) outside any database transaction, so it holds no lock the others would
 * wait on: once it is stopped, a transaction left idle for 250 ms is its (the live instance's last
 * but milliseconds); none left idle means it stopped outside one.
 */
async function pause(instance: ServeProcess): Promise<void> {
  const pid = instance.child.pid!;
  for (let tries = 0; ; tries += 1) {
    instance.child.kill('SIGSTOP');
    await until(() => stateOf(pid) === 'T', 'the instance to stop');
    const held = await until(async () => {
      const { rows } = await deployment.db.query<{ stale: boolean }>(
        "SELECT state_change < clock_timestamp() - interval '250 ms' AS stale FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'",
      );
      return rows.length === 0 ? 'none' : rows.some((row) => row.stale) && 'held';
    }, 'the open transactions to end or stay');
    if (held === 'none') return;
    if (tries === 5) throw new Error('the paused instance keeps a transaction open');
    instance.child.kill('SIGCONT');
    await until(() => stateOf(pid) !== 'T', 'the instance to continue');
  }
}

describe('an instance killed mid-queue', () => {
  it('has its jobs finished by the others after its lease, each delivered once', async () => {
    const { hook, instances } = deployment;
    const gate = await startGate();
    try {
      const count = 12;
      const jobIds: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const answer = await renderAsync(instances[i % 3]!.url, {
          htmlContent: `${gate.document()}<p>held ${i}</p>`,
          identifier: `held-${i}`,
        });
        expect(answer.status).toBe(202);
        jobIds.push(answer.body.jobId!);
      }
      // Each instance (concurrency 1) has one job at the gate and claims a second to wait for the
      // page (two loops per page, runtime.ts): six jobs held, two by each instance.
      await gate.reached(3);
      const inFlight = await until(async () => {
        const held = await rendering();
        return held.length === 6 && held;
      }, 'six jobs rendering');
      expect(new Set(inFlight.map((job) => job.worker)).size).toBe(3);
      // Held under the --job-lease the instances were given, not the default.
      expect(inFlight.every((job) => job.leftMs > 0 && job.leftMs <= leaseMs)).toBe(true);

      const victim = instances[0]!;
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = performance.now();
      gate.open();

      await until(() => identifiersAt(hook) === count, `${count} jobs delivered`, 60_000);
      const finishedMs = performance.now() - killedAt;
      // Nothing left to send, so no second event can still come.
      await deployment.settled();

      expect(hook.received).toHaveLength(count);
      expect(new Set(hook.received.map((arrival) => arrival.headers['webhook-id'])).size).toBe(count);
      const events = hook.received.map(eventOf);
      expect(events.every((event) => event.type === 'PDF_RENDERED')).toBe(true);
      expect(new Set(events.map((event) => event.payload.jobId))).toEqual(new Set(jobIds));

      // Exactly the two jobs the killed instance held were claimed again, and the survivors finished them.
      const survivors = instances.slice(1);
      const statuses = await Promise.all(jobIds.map((jobId, i) => jobStatus(survivors[i % 2]!.url, jobId)));
      expect(statuses.every((status) => status.status === 'succeeded')).toBe(true);
      const reclaimed = statuses.filter((status) => status.attempts !== 1);
      expect(reclaimed.map((status) => status.attempts)).toEqual([2, 2]);
      const lost = reclaimed.map((status) => inFlight.find((job) => job.identifier === status.identifier)!);
      expect(lost.every((job) => job !== undefined)).toBe(true);
      const deadWorker = lost[0]!.worker;
      expect(lost[1]!.worker).toBe(deadWorker);
      const { rows } = await deployment.db.query<{ worker: string }>(
        "SELECT DISTINCT split_part(claimed_by, '.', 1) AS worker FROM jobs",
      );
      expect(rows.map((row) => row.worker)).not.toContain(deadWorker);

      // Their PDFs are the documents they were given, from either survivor.
      for (const job of lost) {
        const event = events.find((e) => e.payload.id === job.identifier)!;
        const pdf = await readPdf(
          new Uint8Array(await (await fetch(onInstance(event.payload.url!, survivors[1]!.url))).arrayBuffer()),
        );
        expect(pdf.pages[0]!.text).toContain(`held ${job.identifier.slice('held-'.length)}`);
      }
      console.log(
        `SIGKILL with 6 jobs held (2 per instance): all ${count} delivered ${Math.round(finishedMs)} ms after the kill (lease ${leaseMs / 1000} s); re-claimed: ${lost.map((job) => job.identifier).join(', ')}`,
      );
    } finally {
      gate.close();
    }
  }, 120_000);

  it('refuses the completion of a holder that resumes after its jobs were re-claimed and finished (fencing)', async () => {
    const { hook, instances } = deployment;
    // The instances still running (the survivors of the test before); each claims two jobs, one of them waiting at the gate.
    const running = instances.filter(
      (instance) => instance.child.exitCode === null && instance.child.signalCode === null,
    );
    const [stale, live] = running as [ServeProcess, ServeProcess];
    const gate = await startGate();
    hook.received.length = 0;
    try {
      const count = 8;
      const jobIds: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const answer = await renderAsync(live.url, {
          htmlContent: `${gate.document()}<p>paused ${i}</p>`,
          identifier: `paused-${i}`,
        });
        expect(answer.status).toBe(202);
        jobIds.push(answer.body.jobId!);
      }
      await gate.reached(running.length);
      const inFlight = await until(async () => {
        const held = await rendering();
        return held.length === 2 * running.length && held;
      }, 'two jobs rendering on each instance');
      await pause(stale);
      gate.open();
      // The live instance finishes its own, the queued ones, and (after the lease) the paused one's.
      await until(() => identifiersAt(hook) === count, `${count} jobs delivered`, 60_000);
      const { rows: reclaimedRows } = await deployment.db.query<{ identifier: string; worker: string }>(
        "SELECT identifier, split_part(claimed_by, '.', 1) AS worker FROM jobs WHERE identifier LIKE 'paused-%' AND attempts = 2 ORDER BY identifier",
      );
      expect(reclaimedRows).toHaveLength(2);
      const staleWorker = inFlight.find((job) => job.identifier === reclaimedRows[0]!.identifier)!.worker;
      expect(reclaimedRows.every((job) => job.worker !== staleWorker)).toBe(true);

      // Resumed, the stale holder renders both jobs again but may not complete them: it says so and
      // drops its PDFs (nothing names them). SIGTERM waits for its jobs in hand.
      stale.child.kill('SIGCONT');
      const takenOver = () =>
        stale.stderr().match(/taken over by another worker after its lease ran out/g)?.length ?? 0;
      await until(() => takenOver() === 2, 'the stale holder to find both jobs taken over');
      stale.child.kill('SIGTERM');
      expect(await stale.exited).toBe(0);
      const { rows: orphans } = await deployment.db.query(
        'SELECT id FROM files WHERE id NOT IN (SELECT file_id FROM jobs WHERE file_id IS NOT NULL) UNION SELECT id FROM blobs WHERE id NOT IN (SELECT id FROM files)',
      );
      expect(orphans).toEqual([]);
      await deployment.settled();

      expect(hook.received).toHaveLength(count);
      const events = hook.received.map(eventOf);
      expect(events.every((event) => event.type === 'PDF_RENDERED')).toBe(true);
      expect(new Set(events.map((event) => event.payload.jobId))).toEqual(new Set(jobIds));
      const statuses = await Promise.all(jobIds.map((jobId) => jobStatus(live.url, jobId)));
      expect(statuses.every((status) => status.status === 'succeeded')).toBe(true);
      // The file each job names is the live instance's render, as its event said.
      statuses.forEach((status, i) =>
        expect(events.find((event) => event.payload.jobId === jobIds[i])!.payload.url).toBe(status.fileUrl),
      );
    } finally {
      stale.child.kill('SIGCONT');
      gate.close();
    }
  }, 120_000);
});
