/**
 * Webhook endpoints that go away and come back, through a real server, real Chromium renders, a
 * real local receiver and the CLI (run in this process: these commands only read and write the data
 * dir, which a child process would do the same way): a receiver that answers 410 Gone disables its endpoint,
 * whose events (the 410'd one and those of jobs finishing afterwards) are held, never dropped;
 * `webhooks enable`, re-adding the URL (CLI or HTTP) and `redeliver` send them, and every command
 * says what it did.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { migrations } from '../src/store/sqlite/open-db.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { receiver, type Arrival } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

let engine: Engine;
const pdfrender = inProcessCli();

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 10_000 });
});

afterAll(async () => {
  await engine.close();
  await pdfrender.close();
  await removeTempDirs();
});

/** The CLI on the server's data dir, with its standard output as text. */
async function cli(server: TestServer, args: string[]) {
  const run = await pdfrender.run(['webhooks', ...args, '--data-dir', server.deps.config.dataDir]);
  return { code: run.code, stdout: run.stdout.toString(), stderr: run.stderr };
}

/** A receiver that answers 410 Gone while `gone` is set and 200 otherwise, noting what it answered to each request. */
async function flakyReceiver() {
  const state = { gone: true, answers: [] as number[] };
  const hook = await receiver((res, index) => {
    state.answers[index] = state.gone ? 410 : 200;
    res.writeHead(state.answers[index]!).end();
  });
  /** The requests it accepted (answered 200). */
  const accepted = (): Arrival[] => hook.received.filter((_, index) => state.answers[index] === 200);
  return { ...hook, state, accepted };
}

/** Queue an async render; returns its job id. */
async function renderAsync(
  server: TestServer,
  identifier: string,
  headers: Record<string, string> = {},
): Promise<string> {
  const response = await fetch(`${server.url}/api/pdfs/render-async`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ htmlContent: `<p>${identifier}</p>`, identifier }),
  });
  expect(response.status).toBe(202);
  return (await response.json()).jobId;
}

const rows = (server: TestServer, endpointId: string) =>
  server.db
    .prepare(
      'SELECT job_id AS jobId, event_id AS eventId, status FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY id',
    )
    .all(endpointId) as Array<{
    jobId: string;
    eventId: string;
    status: string;
  }>;

/** The job id and webhook-id of an arrival, checking its signature with `secret` as a receiver would. */
function verified(secret: string, arrival: Arrival): { jobId: string; webhookId: string } {
  const headers = Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(arrival.headers[name])]),
  );
  const event = new Webhook(secret).verify(arrival.body, headers) as { payload: { jobId: string } };
  return { jobId: event.payload.jobId, webhookId: headers['webhook-id']! };
}

describe('an endpoint that answered 410 Gone', () => {
  it('holds every event (the 410th and later jobs) and `webhooks enable` delivers all 5, each once', async () => {
    const hook = await flakyReceiver();
    const server = await startServer({}, { engine }, { realClock: true });
    try {
      const added = await cli(server, ['add', hook.url, '--allow-private-webhooks', '--json']);
      expect(added.code).toBe(0);
      const endpoint = JSON.parse(added.stdout) as { id: string; secret: string };
      // Five jobs at once: the first delivery to arrive is answered 410 (so are any already in
      // flight), and the jobs finishing afterwards have only a disabled endpoint.
      const jobs = await Promise.all([1, 2, 3, 4, 5].map((n) => renderAsync(server, `doc-${n}`)));
      await until(async () => {
        const listed = JSON.parse((await cli(server, ['list', '--json'])).stdout) as Array<{
          held: number;
          disabledAt: number | null;
        }>;
        return listed[0]!.disabledAt !== null && listed[0]!.held === 5;
      }, '5 events held for the disabled endpoint');
      expect(rows(server, endpoint.id).map((row) => row.status)).toEqual(Array(5).fill('held'));
      const goneAnswers = hook.received.length;
      expect(goneAnswers).toBeGreaterThanOrEqual(1);
      expect(hook.accepted()).toEqual([]);
      const listed = await cli(server, ['list']);
      expect(listed.stdout).toContain(
        `(the receiver answered 410); 5 events held: \`pdfrender webhooks enable ${endpoint.id}\` sends them`,
      );

      // Nothing can be sent while it is disabled, and redeliver says so rather than "queued".
      const early = await cli(server, ['redeliver', jobs[0]!]);
      expect(early.code).toBe(2);
      expect(early.stdout).toBe('');
      expect(early.stderr).toContain(
        `nothing queued for ${jobs[0]}: no webhook endpoint is active; held for disabled ${endpoint.id}`,
      );
      expect(rows(server, endpoint.id).map((row) => row.status)).toEqual(Array(5).fill('held'));

      hook.state.gone = false;
      const enabled = await cli(server, ['enable', endpoint.id]);
      expect(enabled.code).toBe(0);
      expect(enabled.stdout.trim()).toBe(
        `${endpoint.id}: enabled again; 5 events it held queued, to be sent in the order they happened`,
      );
      await until(() => rows(server, endpoint.id).every((row) => row.status === 'delivered'), 'all 5 delivered');

      // Figures: 5 of 5 delivered, none twice, none lost; a job whose event was answered 410 gets
      // it again under the same webhook-id, so a receiver that had taken it could tell.
      const accepted = hook.accepted().map((arrival) => verified(endpoint.secret, arrival));
      expect(accepted.map((a) => a.jobId).sort()).toEqual([...jobs].sort());
      expect(new Set(accepted.map((a) => a.webhookId)).size).toBe(5);
      const refusedIds = hook.received
        .filter((_, index) => hook.state.answers[index] === 410)
        .map((arrival) => verified(endpoint.secret, arrival));
      for (const refused of refusedIds)
        expect(accepted.find((a) => a.jobId === refused.jobId)!.webhookId).toBe(refused.webhookId);
      expect(hook.received).toHaveLength(goneAnswers + 5);
      const log = JSON.parse((await cli(server, ['deliveries', '--json'])).stdout) as Array<{ status: string }>;
      expect(log.map((entry) => entry.status)).toEqual(Array(5).fill('delivered'));
    } finally {
      await server.close();
      hook.close();
    }
  }, 90_000);

  it('is enabled again by re-adding its URL over HTTP (same key and secret); redeliver reaches endpoints added since; removing one says what it will not send', async () => {
    const back = await flakyReceiver();
    const gone = await flakyReceiver();
    const later = await receiver();
    const server = await startServer({ apiKeys: ['k'] }, { engine }, { realClock: true });
    const api = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { Authorization: 'Bearer k', ...(body ? { 'Content-Type': 'application/json' } : {}), ...headers },
        body: body ? JSON.stringify(body) : null,
      });
    try {
      const first = await (await api('POST', '/api/webhooks', { url: back.url })).json();
      const other = await (await api('POST', '/api/webhooks', { url: gone.url })).json();
      const job1 = await renderAsync(server, 'first', { Authorization: 'Bearer k' });
      await until(
        async () => (await server.deps.webhooks.list()).every((e) => e.disabledAt !== null),
        'both endpoints disabled',
      );
      // Every endpoint disabled: async jobs are still taken, and their events held.
      const job2 = await renderAsync(server, 'second', { Authorization: 'Bearer k' });
      await until(
        async () => (await server.deps.webhooks.list()).every((e) => e.held === 2),
        'both endpoints holding 2 events',
      );

      // Enabling follows the other routes' rules: the API key, and no other site's browser page.
      expect((await api('POST', `/api/webhooks/${first.id}/enable`, undefined, { Authorization: '' })).status).toBe(
        401,
      );
      const crossSite = await api('POST', `/api/webhooks/${first.id}/enable`, undefined, {
        Origin: 'https://evil.example',
        'Sec-Fetch-Site': 'cross-site',
      });
      expect(crossSite.status).toBe(403);
      expect((await api('GET', `/api/webhooks/${first.id}/enable`)).status).toBe(405);
      expect((await server.deps.webhooks.get(first.id))!.disabledAt).not.toBeNull();

      back.state.gone = false;
      const readded = await api('POST', '/api/webhooks', { url: back.url });
      expect(readded.status).toBe(200);
      const body = await readded.json();
      expect(body).toEqual({
        outcome: 'SUCCESS',
        id: first.id,
        url: back.url,
        createdAt: first.createdAt,
        disabledAt: null,
        reenabled: true,
        released: 2,
      });
      await until(() => back.accepted().length === 2, 'the 2 held events at the re-added endpoint');
      // Its receiver's existing configuration still works: same key as Bearer, same signing secret.
      expect(back.accepted().map((a) => a.headers.authorization)).toEqual([
        `Bearer ${first.key}`,
        `Bearer ${first.key}`,
      ]);
      expect(
        back
          .accepted()
          .map((a) => verified(first.secret, a).jobId)
          .sort(),
      ).toEqual([job1, job2].sort());
      expect((await server.deps.webhooks.get(other.id))!.disabledAt).not.toBeNull(); // the other one still holds its 2

      // An endpoint added after the jobs finished gets job 1's event on redelivery, under the
      // webhook-id the others got; the re-added endpoint gets it again; the disabled one holds it.
      const third = await (await api('POST', '/api/webhooks', { url: later.url })).json();
      const redelivered = await cli(server, ['redeliver', job1]);
      expect(redelivered.code).toBe(0);
      expect(redelivered.stdout.trim()).toBe(
        `queued 2 deliveries of ${job1} again (1 to endpoints that never had it); held for disabled ${other.id} (\`pdfrender webhooks enable <id>\` sends it)`,
      );
      await until(
        () => later.received.length === 1 && back.accepted().length === 3,
        'the redelivered event at both active endpoints',
      );
      const firstId = rows(server, first.id).find((row) => row.jobId === job1)!.eventId;
      expect(verified(third.secret, later.received[0]!)).toEqual({ jobId: job1, webhookId: firstId });

      // Removing the disabled endpoint says what it will not send, and the log names the jobs.
      const removed = await api('DELETE', `/api/webhooks/${other.id}`);
      expect(await removed.json()).toEqual({ outcome: 'SUCCESS', unsent: 2 });
      const failed = JSON.parse((await cli(server, ['deliveries', '--failed', '--json'])).stdout) as Array<{
        jobId: string;
        lastError: string;
      }>;
      expect(failed.map((entry) => [entry.jobId, entry.lastError]).sort()).toEqual(
        [job1, job2].sort().map((job) => [job, 'the endpoint was removed']),
      );

      // Enabling an active endpoint changes nothing and says so; an unknown one is 404.
      expect(await (await api('POST', `/api/webhooks/${first.id}/enable`)).json()).toMatchObject({
        outcome: 'SUCCESS',
        id: first.id,
        wasDisabled: false,
        released: 0,
      });
      expect((await api('POST', '/api/webhooks/wh_nope/enable')).status).toBe(404);
      const unknown = await cli(server, ['enable', 'wh_nope']);
      expect([unknown.code, unknown.stderr]).toEqual([
        2,
        expect.stringContaining('no webhook endpoint with id wh_nope'),
      ]);
      const noJob = await cli(server, ['redeliver', 'job_nope']);
      expect([noJob.code, noJob.stderr]).toEqual([2, expect.stringContaining('no job job_nope')]);
    } finally {
      await server.close();
      back.close();
      gone.close();
      later.close();
    }
  }, 90_000);

  it('is enabled again by `webhooks add` of its URL, which prints what it sent and no new credentials', async () => {
    const hook = await flakyReceiver();
    const server = await startServer({}, { engine }, { realClock: true });
    try {
      const endpoint = JSON.parse(
        (await cli(server, ['add', hook.url, '--allow-private-webhooks', '--json'])).stdout,
      ) as {
        id: string;
        key: string;
        secret: string;
      };
      const job = await renderAsync(server, 'only');
      await until(async () => (await server.deps.webhooks.list())[0]!.held === 1, 'the event held');
      hook.state.gone = false;
      const again = await cli(server, ['add', hook.url, '--allow-private-webhooks']);
      expect(again.code).toBe(0);
      expect(again.stdout).toBe(
        `id:     ${endpoint.id}\nurl:    ${hook.url}\nenabled again; 1 event it held queued, to be sent in the order they happened; its key and signing secret are unchanged (\`pdfrender webhooks list --show-secrets\` shows them)\n`,
      );
      expect(again.stdout).not.toContain(endpoint.secret);
      await until(() => hook.accepted().length === 1, 'the held event');
      expect(verified(endpoint.secret, hook.accepted()[0]!).jobId).toBe(job);
      expect(await server.deps.webhooks.list()).toHaveLength(1);
    } finally {
      await server.close();
      hook.close();
    }
  }, 60_000);

  it('holds, after an upgrade, what an older pdfrender settled as failed only because of the 410', async () => {
    const hook = await receiver();
    const dataDir = await tempDir();
    // The data dir as schema 8 left it: the 410'd event and one the sender then abandoned are
    // "failed"; one that failed on its own (500s) and one delivered elsewhere stay as they are.
    const old = new Database(join(dataDir, 'pdfrender.db'));
    for (const migration of migrations.slice(0, 8)) old.exec(migration);
    old.pragma('user_version = 8');
    const addEndpoint = old.prepare(
      "INSERT INTO webhook_endpoints (id, url, key, secret, created_at, disabled_at) VALUES (?, ?, 'whk_x', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', ?, ?)",
    );
    addEndpoint.run('wh_gone', hook.url, 1, 5);
    addEndpoint.run('wh_live', 'https://example.com/hook', 2, null);
    const addDelivery = old.prepare(
      'INSERT INTO webhook_deliveries (event_id, job_id, endpoint_id, body, status, attempts, next_attempt_at, last_status, last_error, created_at) VALUES (?, ?, ?, ?, ?, 1, 3, ?, ?, 3)',
    );
    addDelivery.run(
      'evt_a',
      'job_a',
      'wh_gone',
      '{"job":"a"}',
      'failed',
      410,
      'the receiver answered 410 Gone; the endpoint is disabled',
    );
    addDelivery.run('evt_b', 'job_b', 'wh_gone', '{"job":"b"}', 'failed', null, 'the endpoint was disabled');
    addDelivery.run('evt_c', 'job_c', 'wh_gone', '{"job":"c"}', 'failed', 500, 'the receiver answered 500');
    addDelivery.run('evt_a', 'job_a', 'wh_live', '{"job":"a"}', 'delivered', 200, null);
    old.close();

    const server = await startServer({ dataDir }, { engine }, { realClock: true });
    try {
      expect((await server.deps.webhooks.list()).map((e) => [e.id, e.held])).toEqual([
        ['wh_gone', 2],
        ['wh_live', 0],
      ]);
      expect((await cli(server, ['enable', 'wh_gone'])).stdout.trim()).toBe(
        'wh_gone: enabled again; 2 events it held queued, to be sent in the order they happened',
      );
      await until(() => hook.received.length === 2, 'the 2 held events');
      expect(hook.received.map((r) => [r.headers['webhook-id'], r.body]).sort()).toEqual([
        ['evt_a', '{"job":"a"}'],
        ['evt_b', '{"job":"b"}'],
      ]);
      // The receiver answers before the sender writes down the outcome: wait for the rows, not just the arrivals.
      await until(
        () => rows(server, 'wh_gone').every((row) => row.status !== 'pending'),
        'the outcomes of the 2 held events',
      );
      expect(rows(server, 'wh_gone').map((row) => row.status)).toEqual(['delivered', 'delivered', 'failed']);
    } finally {
      await server.close();
      hook.close();
    }
  }, 30_000);
});
