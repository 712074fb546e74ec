/**
 * A step of one instance's wall clock (NTP, an operator) while two instances on one PostgreSQL hold
 * jobs in flight: the stepped instance counts time by the database's clock from its monotonic
 * clock, so it sees no lease run out early and takes no job from the other; every job is rendered
 * once (attempts 1) and delivered once. Before, its clock was Date.now() plus the measured offset,
 * and a +30 s step made it requeue the other instance's jobs (rendered twice, an attempt lost each).
 */
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate } from './support/gate.js';
import { eventOf, identifiersAt, renderAsync, startDeployment, type Deployment } from './support/instances.js';
import { until } from './support/wait.js';

let deployment: Deployment;
/** Short, so an early expiry would show within the observation window below. */
const leaseMs = 3_000;

beforeAll(async () => {
  const shim = pathToFileURL(new URL('./support/clock-step.mjs', import.meta.url).pathname).href;
  deployment = await startDeployment('clock_step', 2, ['--allow-host', '127.0.0.1', '--job-lease', `${leaseMs}ms`], {
    NODE_OPTIONS: `--import ${shim}`,
  });
}, 120_000);
afterAll(() => deployment?.stop(), 60_000);

describe('a wall-clock step on one instance', () => {
  it('takes no job in flight from the other: every job rendered once and delivered once', async () => {
    const { hook, instances, db } = deployment;
    const [stepped, other] = instances as [(typeof instances)[0], (typeof instances)[0]];
    const gate = await startGate();
    try {
      const count = 6;
      const jobIds: string[] = [];
      for (let i = 0; i < count; i += 1) {
        const answer = await renderAsync(other.url, {
          htmlContent: `${gate.document()}<p>step ${i}</p>`,
          identifier: `step-${i}`,
        });
        expect(answer.status).toBe(202);
        jobIds.push(answer.body.jobId!);
      }
      // Each instance (concurrency 1, two loops) holds two jobs: one at the gate, one waiting for the page.
      await until(
        async () =>
          Number(
            (await db.query<{ n: string }>("SELECT count(*) AS n FROM jobs WHERE status = 'rendering'")).rows[0]!.n,
          ) === 4,
        'four jobs rendering',
      );

      stepped.child.kill('SIGUSR2');
      await until(() => stepped.stderr().includes('wall clock stepped to +30000 ms'), 'the step to take effect');
      // Nothing must happen for a while: the stepped instance looks for expired leases every second,
      // and a +30 s step puts every 3 s lease ten times past its end.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      const { rows: taken } = await db.query<{ identifier: string; attempts: number }>(
        'SELECT identifier, attempts FROM jobs WHERE attempts > 1',
      );
      expect(taken).toEqual([]);

      gate.open();
      await until(() => identifiersAt(hook, 'step-') === count, `${count} jobs delivered`, 60_000);
      await deployment.settled();
      const events = hook.received.map(eventOf).filter((event) => event.payload.id.startsWith('step-'));
      expect(events).toHaveLength(count);
      expect(events.every((event) => event.type === 'PDF_RENDERED')).toBe(true);
      expect(new Set(events.map((event) => event.payload.jobId))).toEqual(new Set(jobIds));
      const { rows } = await db.query<{ attempts: number; status: string }>(
        "SELECT attempts::int, status FROM jobs WHERE identifier LIKE 'step-%'",
      );
      expect(rows.map((row) => [row.status, row.attempts])).toEqual(
        Array.from({ length: count }, () => ['succeeded', 1]),
      );
      // Both instances are still up and answer.
      for (const instance of instances) expect((await fetch(`${instance.url}/healthz`)).status).toBe(200);
    } finally {
      gate.close();
    }
  }, 120_000);
});
