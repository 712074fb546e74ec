/**
 * PostgreSQL restarted (`pg_ctl restart -m fast`, as a minor-version upgrade does) and crashed
 * (`pg_ctl stop -m immediate`, then started again, as a failover looks to its clients) under a
 * steady stream of render-async requests to three instances on it (issue 25): no instance exits,
 * every request is answered 202, a 503 naming the storage with Retry-After (and then nothing was
 * queued: an enqueue whose answer the outage took is looked up, lost-answer.ts), or 504
 * OUTCOME_UNKNOWN when the database could not be asked (and then the same request again answers
 * the job, or queues it); /readyz answers 503 while the database is away and 200 again by itself
 * after, and every accepted job is delivered once (the same webhook-id may come again:
 * at-least-once; a second job or event never).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServeProcess } from './support/cli.js';
import { eventOf, startDeployment, type Deployment } from './support/instances.js';
import { until } from './support/wait.js';

let deployment: Deployment;

// Commits acknowledged before a crash must survive it (synchronous_commit on), as on a real server:
// with it off, the test cluster loses the last ones, and jobs answered 202 with them. A webhook
// whose outcome could not be recorded while the database was away is sent again once its claim
// runs out (a --job-lease): the shortest lease keeps that wait, which settling waits out, short.
beforeAll(async () => {
  deployment = await startDeployment('restart', 3, ['--job-lease', '3s'], {}, { durableCommits: true });
}, 120_000);
afterAll(async () => {
  // An instance that exited says why on its stderr: shown whatever failed.
  for (const [i, instance] of (deployment?.instances ?? []).entries())
    if (instance.child.exitCode !== null || instance.child.signalCode !== null)
      console.log(
        `instance ${i} exited (${instance.child.exitCode ?? instance.child.signalCode}):\n${instance.stderr()}`,
      );
  await deployment?.stop();
}, 60_000);

/** Requests in each stream at least, sent three at a time (one client per instance); it goes on while the outage lasts, up to `mostRequests`. */
const requests = 60;
const mostRequests = 400;
/** Requests a stream still sends once the database is back. */
const afterwards = 9;
/** Each client's pause between two of its requests: a steady stream, not a burst over before the outage. */
const paceMs = 40;

interface Answer {
  identifier: string;
  instance: number;
  /** 0 when no answer came at all (the instance went away). */
  status: number;
  retryAfter: string | null;
  outcome: string | undefined;
  jobId: string | undefined;
  body: string;
}

/** POST one render-async request to instance `instance`, keeping what a client sees of the answer. */
async function send(instance: number, identifier: string): Promise<Answer> {
  try {
    const response = await fetch(`${deployment.instances[instance]!.url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlContent: `<p>${identifier}</p>`, identifier }),
    });
    const body = await response.text();
    const parsed = JSON.parse(body) as { jobId?: string; outcome?: string };
    return {
      identifier,
      instance,
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      outcome: parsed.outcome,
      jobId: parsed.jobId,
      body,
    };
  } catch (error) {
    return {
      identifier,
      instance,
      status: 0,
      retryAfter: null,
      outcome: undefined,
      jobId: undefined,
      body: String((error as Error).cause ?? error),
    };
  }
}

/**
 * Render-async requests named `prefix-<n>` over the three instances, `answers` filling as they come:
 * at least `requests`, and on until `afterwards` more were answered after `back.at` (the answer count
 * when the database was back; set it then), so the outage falls inside the stream however fast
 * refusals come.
 */
async function stream(prefix: string, answers: Answer[], back: { at: number }): Promise<void> {
  let next = 0;
  const more = () => next < mostRequests && (next < requests || answers.length < back.at + afterwards);
  await Promise.all(
    [0, 1, 2].map(async (client) => {
      while (more()) {
        const identifier = `${prefix}-${next++}`;
        answers.push(await send(client, identifier));
        await new Promise((resolve) => setTimeout(resolve, paceMs));
      }
    }),
  );
}

/** The status of `instance`'s /readyz, or 0 when it does not answer. */
const readyStatus = (instance: ServeProcess) =>
  fetch(`${instance.url}/readyz`).then(
    (response) => response.status,
    () => 0,
  );

/** /readyz of every instance, polled until `stop`; `seen[i]` keeps instance i's statuses in order. */
function pollReadiness() {
  const seen: number[][] = deployment.instances.map(() => []);
  let stopped = false;
  const polling = Promise.all(
    deployment.instances.map(async (instance, i) => {
      while (!stopped) {
        seen[i]!.push(await readyStatus(instance));
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }),
  );
  return {
    seen,
    async stop() {
      stopped = true;
      await polling;
    },
  };
}

/** Throws, with its stderr, when an instance has exited: a wait on the others would only time out. */
function failIfExited(): void {
  for (const [i, instance] of deployment.instances.entries())
    if (instance.child.exitCode !== null || instance.child.signalCode !== null)
      expect.fail(
        `instance ${i} exited (${instance.child.exitCode ?? instance.child.signalCode}):\n${instance.stderr()}`,
      );
}

/** `until`, failing at once when an instance exits meanwhile. */
const whileAllRun = <T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  timeoutMs?: number,
) =>
  until(
    () => {
      failIfExited();
      return read();
    },
    what,
    timeoutMs,
  );

/** Every instance is the process it was at the start (`pids`), still running, and never met an unhandled error. */
function expectAllRunning(pids: Array<number | undefined>): void {
  deployment.instances.forEach((instance, i) => {
    const { exitCode, signalCode, pid } = instance.child;
    expect({ i, exitCode, signalCode, pid }, instance.stderr()).toEqual({
      i,
      exitCode: null,
      signalCode: null,
      pid: pids[i],
    });
    expect(instance.stderr()).not.toMatch(/Unhandled 'error' event|uncaughtException|unhandledRejection/);
  });
}

/** After an outage: /readyz 200 again on every instance by itself; then one request to each, accepted (202). */
async function expectBackByItself(prefix: string): Promise<Answer[]> {
  const { instances } = deployment;
  await whileAllRun(
    async () => (await Promise.all(instances.map(readyStatus))).every((status) => status === 200),
    'every instance to be ready again',
    30_000,
  );
  const after = await Promise.all(instances.map((_, i) => send(i, `${prefix}-after-${i}`)));
  expect(after.map((answer) => [answer.status, answer.body])).toEqual(after.map((answer) => [202, answer.body]));
  return after;
}

/**
 * Every request was answered 202, 503 (a 503 of the storage, with Retry-After) or 504
 * OUTCOME_UNKNOWN (with Retry-After), and each 504'd request sent again is 202; once all was
 * delivered, each accepted job got one PDF_RENDERED, repeated only under its own webhook-id, no
 * identifier became two jobs or two events, and no 503'd one is a job. Answers what it counted, for the log.
 */
async function expectDeliveredOnce(prefix: string, answers: Answer[]): Promise<string> {
  const { hook, db } = deployment;
  const unexpected = answers.filter((answer) => ![202, 503, 504].includes(answer.status));
  expect(unexpected, 'answers neither 202, 503 nor 504').toEqual([]);
  const unknown = answers.filter((answer) => answer.status === 504);
  expect(
    unknown.filter((answer) => answer.outcome !== 'OUTCOME_UNKNOWN' || answer.retryAfter !== '5'),
    '504s without OUTCOME_UNKNOWN and Retry-After',
  ).toEqual([]);
  // Sent again as the 504 says: the job it queued, or a new one; either way accepted once.
  const resent = await Promise.all(unknown.map((answer) => send(answer.instance, answer.identifier)));
  expect(resent.map((answer) => [answer.identifier, answer.status])).toEqual(
    resent.map((answer) => [answer.identifier, 202]),
  );
  const accepted = [...answers.filter((answer) => answer.status === 202), ...resent];
  const refused = answers.filter((answer) => answer.status === 503);
  const storageRefusal = (answer: Answer) =>
    ['STORAGE_UNAVAILABLE', 'DATABASE_BUSY'].includes(answer.outcome ?? '') &&
    /^[1-9]\d*$/.test(answer.retryAfter ?? '');
  expect(
    refused.filter((answer) => !storageRefusal(answer)),
    '503s without a storage outcome or Retry-After',
  ).toEqual([]);
  expect(accepted.every((answer) => answer.jobId !== undefined)).toBe(true);

  const delivered = () => new Set(hook.received.map((arrival) => eventOf(arrival).payload.id));
  await whileAllRun(
    () => accepted.every((answer) => delivered().has(answer.identifier)),
    `${accepted.length} accepted ${prefix} jobs delivered`,
  ).catch(async (error: Error) => {
    const missing = accepted.map((answer) => answer.identifier).filter((id) => !delivered().has(id));
    const { rows } = await db.query(
      'SELECT id, identifier, status, attempts, claimed_by FROM jobs WHERE identifier = ANY($1)',
      [missing],
    );
    throw new Error(`${error.message}; not delivered: ${missing.join(', ')}; in the database: ${JSON.stringify(rows)}`);
  });
  // Nothing left to send (a 503'd request whose commit landed all the same is sent too), so no event can still come.
  await deployment.settled();

  const arrivals = hook.received.filter((arrival) => eventOf(arrival).payload.id.startsWith(`${prefix}-`));
  const byIdentifier = new Map<string, { jobIds: Set<string>; webhookIds: Set<string>; types: Set<string> }>();
  for (const arrival of arrivals) {
    const event = eventOf(arrival);
    const entry = byIdentifier.get(event.payload.id) ?? { jobIds: new Set(), webhookIds: new Set(), types: new Set() };
    entry.jobIds.add(event.payload.jobId);
    entry.webhookIds.add(String(arrival.headers['webhook-id']));
    entry.types.add(event.type);
    byIdentifier.set(event.payload.id, entry);
  }
  const doubled = [...byIdentifier].filter(
    ([, entry]) => entry.jobIds.size !== 1 || entry.webhookIds.size !== 1 || entry.types.size !== 1,
  );
  if (doubled.length > 0) {
    const ids = doubled.map(([id]) => id);
    const { rows: jobs } = await db.query(
      'SELECT id, identifier, status, attempts, claimed_by FROM jobs WHERE identifier = ANY($1)',
      [ids],
    );
    const { rows: sent } = await db.query(
      'SELECT d.event_id, d.job_id, d.status, d.attempts FROM webhook_deliveries d JOIN jobs j ON j.id = d.job_id WHERE j.identifier = ANY($1)',
      [ids],
    );
    const found = doubled.map(([id, entry]) => ({
      id,
      jobIds: [...entry.jobIds],
      webhookIds: [...entry.webhookIds],
      types: [...entry.types],
    }));
    expect.fail(
      `identifiers delivered as two jobs or two events: ${JSON.stringify(found)}; jobs ${JSON.stringify(jobs)}; deliveries ${JSON.stringify(sent)}`,
    );
  }
  for (const answer of accepted) {
    const entry = byIdentifier.get(answer.identifier)!;
    expect([answer.identifier, [...entry.jobIds], [...entry.types]]).toEqual([
      answer.identifier,
      [answer.jobId],
      ['PDF_RENDERED'],
    ]);
  }

  // The database agrees: one job per identifier, each finished, and exactly those the receiver heard of.
  const { rows } = await db.query<{ identifier: string; jobs: string; statuses: string; attempts: string }>(
    `SELECT identifier, count(*) AS jobs, string_agg(DISTINCT status, ',') AS statuses, max(attempts)::text AS attempts
     FROM jobs WHERE identifier LIKE $1 GROUP BY identifier`,
    [`${prefix}-%`],
  );
  expect(rows.filter((row) => row.jobs !== '1' || row.statuses !== 'succeeded')).toEqual([]);
  expect(rows.map((row) => row.identifier).sort()).toEqual([...byIdentifier.keys()].sort());

  // A 503 means nothing was queued: an enqueue whose answer the outage cut off was looked up before the answer.
  expect(
    refused.filter((answer) => byIdentifier.has(answer.identifier)).map((answer) => answer.identifier),
    "503'd requests that were queued all the same",
  ).toEqual([]);
  const outcomes = [...new Set(refused.map((answer) => `${answer.outcome} (Retry-After ${answer.retryAfter})`))].join(
    ', ',
  );
  return (
    `${accepted.length} accepted (${unknown.length} after a 504 OUTCOME_UNKNOWN), ${refused.length} refused with 503 ${outcomes || ''}; ` +
    `${arrivals.length - byIdentifier.size} event(s) sent again under the same webhook-id; ` +
    `${rows.filter((row) => row.attempts !== '1').length} job(s) rendered again`
  );
}

describe('PostgreSQL restarted or crashed under load, three instances', () => {
  it('rides out pg_ctl restart -m fast', async () => {
    const pids = deployment.instances.map((instance) => instance.child.pid);
    const answers: Answer[] = [];
    const back = { at: Infinity };
    const streaming = stream('fast', answers, back);
    await whileAllRun(() => answers.length >= 10, 'the stream to be under way');
    const readiness = pollReadiness();
    const started = performance.now();
    await deployment.cluster.restart({ mode: 'fast' });
    const restartMs = performance.now() - started;
    back.at = answers.length;
    await streaming;
    await readiness.stop();
    // The stream went on after the restart (whether /readyz was polled inside its few hundred ms is
    // timing, so it is only counted here; the crash below holds the outage until it was).
    expect(answers.length).toBeGreaterThanOrEqual(back.at + afterwards);

    answers.push(...(await expectBackByItself('fast')));
    const counted = await expectDeliveredOnce('fast', answers);
    expectAllRunning(pids);
    const unready = readiness.seen.map((seen) => seen.filter((status) => status === 503).length).join('/');
    console.log(`restart -m fast (${Math.round(restartMs)} ms; /readyz 503 ${unready} times on the three): ${counted}`);
  }, 90_000);

  it('rides out a crash (pg_ctl stop -m immediate) and a start after it', async () => {
    const { instances, cluster } = deployment;
    const pids = instances.map((instance) => instance.child.pid);
    const answers: Answer[] = [];
    const back = { at: Infinity };
    const streaming = stream('crash', answers, back);
    await whileAllRun(() => answers.length >= 10, 'the stream to be under way');
    const readiness = pollReadiness();
    await cluster.crash();
    const crashedAt = answers.length;
    const downAt = performance.now();
    // While the database is away: every instance says it is not ready, and requests are refused.
    await whileAllRun(
      () => readiness.seen.every((seen) => seen.includes(503)),
      'every instance to answer /readyz 503 while the database is down',
      10_000,
    );
    await whileAllRun(
      () => answers.slice(crashedAt).filter((answer) => answer.status === 503).length >= 3,
      'requests refused while the database is down',
      10_000,
    );
    await cluster.start();
    const downMs = performance.now() - downAt;
    back.at = answers.length;
    await streaming;
    expect(answers.length).toBeGreaterThanOrEqual(back.at + afterwards);
    await readiness.stop();

    answers.push(...(await expectBackByItself('crash')));
    const counted = await expectDeliveredOnce('crash', answers);
    expectAllRunning(pids);
    console.log(`crash and start (down ${Math.round(downMs)} ms): ${counted}`);
  }, 90_000);
});
