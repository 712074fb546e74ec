/**
 * Three real `pdfrender serve` processes on one throw-away PostgreSQL database, started at the same
 * moment (so their migrations race): they share the async queue (300 jobs, each rendered and
 * delivered once), identifier dedupe (the same identifier at two instances at once), the
 * render-sync rate window, webhook endpoints and the rendered files.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresMigrations } from '../src/store/postgres/schema.js';
import {
  eventOf,
  identifiersAt,
  inParallel,
  jobStatus,
  onInstance,
  renderAsync,
  startDeployment,
  type Deployment,
} from './support/instances.js';
import { readPdf } from './support/pdf.js';
import { receiver, type Receiver } from './support/receiver.js';
import { until } from './support/wait.js';

/** render-sync requests per caller per minute, on each instance. */
const rateLimit = 3;

let deployment: Deployment;

// At the same moment on a fresh database: each instance migrates it as it starts.
beforeAll(async () => {
  deployment = await startDeployment('shared', 3, ['--rate-limit', String(rateLimit)]);
}, 120_000);
afterAll(() => deployment?.stop(), 60_000);

/** The arrivals at `at` whose identifier starts with `prefix`. */
const arrivalsFor = (at: Receiver, prefix: string) =>
  at.received.filter((arrival) => eventOf(arrival).payload.id.startsWith(prefix));

describe('several instances on one PostgreSQL', () => {
  it('start at the same moment on a fresh database: one migration, every instance ready', async () => {
    const { db, instances } = deployment;
    const { rows } = await db.query<{ version: number }>('SELECT version FROM pdfrender_schema');
    expect(rows).toEqual([{ version: postgresMigrations.length }]);
    for (const instance of instances) {
      const ready = await fetch(`${instance.url}/readyz`);
      expect(ready.status, instance.stderr()).toBe(200);
      expect(instance.stderr()).not.toMatch(/error/i);
    }
  });

  it('renders 300 async jobs spread over 3 instances, each once, and delivers each webhook once', async () => {
    const { db, hook, instances } = deployment;
    const count = 300;
    const started = performance.now();
    const accepted = await inParallel(
      Array.from({ length: count }, (_, i) => i),
      12,
      async (i) => {
        const answer = await renderAsync(instances[i % 3]!.url, {
          htmlContent: `<p>bulk ${i}</p>`,
          identifier: `bulk-${i}`,
        });
        expect(answer.status).toBe(202);
        return answer.body.jobId!;
      },
    );
    const queuedMs = performance.now() - started;
    await until(() => identifiersAt(hook, 'bulk-') === count, `${count} distinct webhooks`, 90_000);
    const deliveredMs = performance.now() - started;
    // Nothing left to send: an arrival counted now cannot be followed by a second one for its job.
    await deployment.settled();

    const arrivals = arrivalsFor(hook, 'bulk-');
    expect(arrivals).toHaveLength(count);
    expect(new Set(arrivals.map((arrival) => arrival.headers['webhook-id'])).size).toBe(count);
    const events = arrivals.map(eventOf);
    expect(events.every((event) => event.type === 'PDF_RENDERED')).toBe(true);
    expect(new Set(events.map((event) => event.payload.jobId))).toEqual(new Set(accepted));

    // Through any instance's status URL: succeeded on the first attempt (claimed once).
    const statuses = await inParallel(accepted, 12, (jobId, i) => jobStatus(instances[(i + 1) % 3]!.url, jobId));
    expect(statuses.filter((status) => status.status !== 'succeeded' || status.attempts !== 1)).toEqual([]);

    // Which instance rendered what: a job keeps the holder that completed it (`<worker>.<loop>`, one worker per instance).
    const { rows } = await db.query<{ worker: string; n: string }>(
      "SELECT split_part(claimed_by, '.', 1) AS worker, count(*) AS n FROM jobs WHERE identifier LIKE 'bulk-%' GROUP BY 1 ORDER BY 2 DESC",
    );
    const split = rows.map((row) => Number(row.n));
    expect(split).toHaveLength(3);
    expect(split.reduce((a, b) => a + b)).toBe(count);
    console.log(
      `300 jobs on 3 instances: queued in ${Math.round(queuedMs)} ms, all delivered after ${Math.round(deliveredMs)} ms; rendered per instance: ${split.join(' / ')}`,
    );
  }, 150_000);

  it('answers one 202 and one 402 when the same identifier with two documents reaches two instances at once, and one job for the same request', async () => {
    const { db, instances } = deployment;
    for (let round = 0; round < 20; round += 1) {
      const pair = [instances[round % 3]!, instances[(round + 1) % 3]!];
      const answers = await Promise.all(
        pair.map((instance, i) =>
          renderAsync(instance.url, { htmlContent: `<p>twice ${i}</p>`, identifier: `twin-${round}` }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([202, 402]);
      expect(answers.find((answer) => answer.status === 402)!.body.outcome).toBe('DUPLICATE_IDENTIFIER');
      // The same request at two instances at once (a client retrying elsewhere): both answers name one job.
      const retried = await Promise.all(
        pair.map((instance) =>
          renderAsync(instance.url, { htmlContent: '<p>retried</p>', identifier: `retried-${round}` }),
        ),
      );
      expect(retried.map((answer) => answer.status)).toEqual([202, 202]);
      expect(retried[1]!.body.jobId).toBe(retried[0]!.body.jobId);
    }
    const { rows } = await db.query<{ twins: string; retried: string }>(
      "SELECT count(*) FILTER (WHERE identifier LIKE 'twin-%') AS twins, count(*) FILTER (WHERE identifier LIKE 'retried-%') AS retried FROM jobs",
    );
    expect(rows[0]).toEqual({ twins: '20', retried: '20' });
  });

  it('shares the render-sync rate window: N requests in total succeed within a window, not N per instance', async () => {
    const { db, instances } = deployment;
    // A window is a minute of the database's clock: start with 5 s of it left at least (the requests
    // are counted as they arrive, within milliseconds), waiting for the next window if need be.
    const left = async () => {
      const { rows } = await db.query<{ ms: string }>(
        'SELECT (extract(epoch from clock_timestamp()) * 1000)::text AS ms',
      );
      return 60_000 - (Number(rows[0]!.ms) % 60_000);
    };
    await until(async () => (await left()) >= 5_000, 'a rate window with 5 s left', 10_000);
    const requests = instances.flatMap((instance) => Array.from({ length: rateLimit }, (_, i) => ({ instance, i })));
    const answers = await Promise.all(
      requests.map(async ({ instance, i }) => {
        const response = await fetch(`${instance.url}/api/pdfs/render-sync`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
          body: JSON.stringify({ htmlContent: `<p>sync ${i}</p>` }),
        });
        return {
          status: response.status,
          limit: response.headers.get('RateLimit'),
          body: new Uint8Array(await response.arrayBuffer()),
        };
      }),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(rateLimit);
    expect(statuses.filter((status) => status === 429)).toHaveLength(requests.length - rateLimit);
    for (const answer of answers.filter((a) => a.status === 429)) expect(answer.limit).toMatch(/^"sync";r=0;t=\d+$/);
    for (const answer of answers.filter((a) => a.status === 200))
      expect((await readPdf(answer.body)).pages[0]!.text).toMatch(/sync \d/);
  });

  it('uses an endpoint added through one instance for jobs of every instance, and serves a file from any instance', async () => {
    const { instances } = deployment;
    const second = await receiver();
    try {
      const added = await fetch(`${instances[0]!.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: second.url }),
      });
      expect(added.status).toBe(201);
      const jobs = await Promise.all(
        [1, 2].map((n) =>
          renderAsync(instances[n]!.url, { htmlContent: `<h1>shared endpoint ${n}</h1>`, identifier: `added-${n}` }),
        ),
      );
      expect(jobs.map((job) => job.status)).toEqual([202, 202]);
      await until(
        () => arrivalsFor(second, 'added-').length === 2,
        'both events at the endpoint added through instance 0',
      );
      const events = arrivalsFor(second, 'added-').map(eventOf);
      expect(events.map((event) => event.payload.jobId).sort()).toEqual(jobs.map((job) => job.body.jobId).sort());

      // Each PDF downloads from an instance other than the one that queued it.
      for (const event of events) {
        const n = Number(event.payload.id.slice('added-'.length));
        const other = instances[(n + 1) % 3]!;
        expect(event.payload.url!.startsWith(instances[n]!.url)).toBe(true);
        const download = await fetch(onInstance(event.payload.url!, other.url));
        expect(download.status).toBe(200);
        const pdf = await readPdf(new Uint8Array(await download.arrayBuffer()));
        expect(pdf.pages[0]!.text).toContain(`shared endpoint ${n}`);
        expect((await jobStatus(other.url, event.payload.jobId)).fileUrl).toBe(event.payload.url);
      }
    } finally {
      second.close();
    }
  });
});
