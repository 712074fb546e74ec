/**
 * An endpoint's key (the Bearer token of its deliveries) is not its signing secret: through a real
 * server and a real local receiver, the signature verifies with the secret (standardwebhooks), the
 * Bearer is the key, each can be rotated (over HTTP and with the CLI) while the server runs, and a
 * data dir left by schema 5 keeps its secrets and gets a new key for every endpoint. Events are
 * queued straight into the database, as a finished job would, so nothing is rendered.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { migrations, openDb } from '../src/store/sqlite/open-db.js';
import type { WebhookEndpoint } from '../src/store/contract.js';
import { inProcessCli } from './support/cli-in-process.js';
import { receiver, type Arrival, type Receiver } from './support/receiver.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

/** The CLI, run in this process: `webhooks rotate` only reads and writes the data dir. */
const pdfrender = inProcessCli();

afterAll(async () => {
  await pdfrender.close();
  await removeTempDirs();
});

let events = 0;
/** Queue one event for every active endpoint and wake the sender, as a finished job does, and wait for the receiver to get it. */
async function deliverOne(server: TestServer, hook: Receiver): Promise<Arrival> {
  const before = hook.received.length;
  events += 1;
  deliveries(server.db).queueEvent(
    `job_${events}`,
    { type: 'PDF_RENDERED', payload: { id: `doc-${events}`, jobId: `job_${events}` } },
    server.clock.now(),
  );
  server.deps.wakeSender();
  return until(() => hook.received[before], 'a delivery', 20_000);
}

/** The Standard Webhooks headers of an arrival, as standardwebhooks wants them. */
const signed = (arrival: Arrival) =>
  Object.fromEntries(
    ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [name, String(arrival.headers[name])]),
  );

/** True when `secret` verifies the arrival's signature. */
const verifies = (secret: string, arrival: Arrival) => {
  try {
    new Webhook(secret).verify(arrival.body, signed(arrival));
    return true;
  } catch {
    return false;
  }
};

describe('webhook key and signing secret', () => {
  it('sends the key as Bearer and signs with the secret, which never travels', async () => {
    const hook = await receiver();
    const server = await startServer({}, undefined, { realClock: true });
    try {
      const endpoint = await server.deps.webhooks.add(hook.url, Date.now());
      expect(endpoint.key).toMatch(/^whk_[0-9a-f]{64}$/);
      expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const arrival = await deliverOne(server, hook);
      expect(arrival.headers.authorization).toBe(`Bearer ${endpoint.key}`);
      expect(verifies(endpoint.secret, arrival)).toBe(true);
      // Whoever saw the request cannot sign: the secret is in no header and no body.
      const seen = JSON.stringify(arrival);
      expect(seen).not.toContain(endpoint.secret);
      expect(seen).not.toContain(endpoint.secret.slice('whsec_'.length));
    } finally {
      await server.close();
      hook.close();
    }
  });

  it("sends RenderPDF.io's User-Agent with pdfrender's name after it, or the one --webhook-user-agent sets", async () => {
    const hook = await receiver();
    const plain = await startServer({}, undefined, { realClock: true });
    const configured = await startServer({ webhookUserAgent: 'AcmeHooks/2 (+https://acme.example/bot)' }, undefined, {
      realClock: true,
    });
    try {
      await plain.deps.webhooks.add(hook.url, Date.now());
      // Firewalls that allow-list RenderPDF.io's documented agent match its start.
      expect((await deliverOne(plain, hook)).headers['user-agent']).toBe(
        'RenderPdfIoHTTP/1 (compatible; pdfrender/0.0.0-test)',
      );
      await configured.deps.webhooks.add(hook.url, Date.now());
      expect((await deliverOne(configured, hook)).headers['user-agent']).toBe(
        'AcmeHooks/2 (+https://acme.example/bot)',
      );
    } finally {
      await Promise.all([plain.close(), configured.close()]);
      hook.close();
    }
    // The environment twin, and a value no header may carry refused at start, naming both.
    expect(loadServeConfig({}, { PDFRENDER_WEBHOOK_USER_AGENT: ' Mine/1 ' }, '/srv').webhookUserAgent).toBe('Mine/1');
    expect(() => loadServeConfig({ webhookUserAgent: 'Mine/1\r\nX-Injected: 1' }, {}, '/srv')).toThrow(
      '--webhook-user-agent (PDFRENDER_WEBHOOK_USER_AGENT): must be printable ASCII',
    );
  });

  it('rotates the key over HTTP and the secret with the CLI, each taking effect for the next delivery while the server runs', async () => {
    const hook = await receiver();
    const server = await startServer({}, undefined, { realClock: true });
    const dataDir = server.deps.config.dataDir;
    try {
      const created = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: hook.url }),
      });
      const original = (await created.json()) as WebhookEndpoint;
      expect(original.key).not.toBe(original.secret);

      const rotateKey = await fetch(`${server.url}/api/webhooks/${original.id}/rotate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: true }),
      });
      expect(rotateKey.status).toBe(200);
      const newKey = (await rotateKey.json()) as WebhookEndpoint;
      expect(newKey).toMatchObject({
        id: original.id,
        secret: original.secret,
        key: expect.stringMatching(/^whk_[0-9a-f]{64}$/),
      });
      expect(newKey.key).not.toBe(original.key);
      const afterKey = await deliverOne(server, hook);
      expect(afterKey.headers.authorization).toBe(`Bearer ${newKey.key}`);
      expect(verifies(original.secret, afterKey)).toBe(true);

      const cli = await pdfrender.run(['webhooks', 'rotate', original.id, '--secret', '--data-dir', dataDir], {
        cwd: dataDir,
      });
      expect(cli.stderr).toBe('');
      const output = cli.stdout.toString();
      expect(output).not.toContain('key:');
      const [, newSecret] = /^secret: (whsec_\S+)$/m.exec(output)!;
      expect(newSecret).not.toBe(original.secret);
      const afterSecret = await deliverOne(server, hook);
      expect(afterSecret.headers.authorization).toBe(`Bearer ${newKey.key}`);
      expect(verifies(newSecret!, afterSecret)).toBe(true);
      expect(verifies(original.secret, afterSecret)).toBe(false);

      // With no body (or neither named), both are replaced.
      const both = (await (
        await fetch(`${server.url}/api/webhooks/${original.id}/rotate`, { method: 'POST' })
      ).json()) as WebhookEndpoint;
      expect(both.key).not.toBe(newKey.key);
      expect(both.secret).not.toBe(newSecret);
      const afterBoth = await deliverOne(server, hook);
      expect(afterBoth.headers.authorization).toBe(`Bearer ${both.key}`);
      expect(verifies(both.secret, afterBoth)).toBe(true);

      const missing = await fetch(`${server.url}/api/webhooks/wh_nope/rotate`, { method: 'POST' });
      expect(missing.status).toBe(404);
      const bad = await fetch(`${server.url}/api/webhooks/${original.id}/rotate`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ key: 'maybe', url: 'x' }),
      });
      expect(bad.status).toBe(422);
      expect((await bad.json()).errors).toMatchObject({
        key: ['must be true or false (or 1/0, on/off, yes/no); got "maybe"'],
      });
      const unknown = await pdfrender.run(['webhooks', 'rotate', 'wh_nope', '--data-dir', dataDir], { cwd: dataDir });
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('no webhook endpoint with id wh_nope');
    } finally {
      await server.close();
      hook.close();
    }
  }, 30_000);

  it('gives every endpoint of a schema 5 data dir a fresh key of its own, keeping its secret, and drops the requests of finished jobs', async () => {
    const hook = await receiver();
    const dataDir = await tempDir();
    const path = join(dataDir, 'pdfrender.db');
    // The data dir as pdfrender with schema 5 left it: two endpoints, a finished job and a queued one.
    const old = new Database(path);
    for (const migration of migrations.slice(0, 5)) old.exec(migration);
    old.pragma('user_version = 5');
    const secrets = ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'whsec_9691NePmBhnny59pEoGrkxXsH9wV0NLT74PSmN/zrqE='];
    const addEndpoint = old.prepare('INSERT INTO webhook_endpoints (id, url, secret, created_at) VALUES (?, ?, ?, ?)');
    addEndpoint.run('wh_first', hook.url, secrets[0], 1);
    addEndpoint.run('wh_second', 'https://example.com/hook', secrets[1], 2);
    const addJob = old.prepare(
      `INSERT INTO jobs (id, caller, identifier, priority, request, base_url, status, max_attempts, created_at, available_at, finished_at)
       VALUES (?, 'ip:127.0.0.1', ?, 0, ?, 'http://127.0.0.1:3000', ?, 3, 1, 1, ?)`,
    );
    const finished = JSON.stringify({ htmlContent: '<p>finished</p>' });
    addJob.run('job_done', 'done', finished, 'succeeded', 2);
    addJob.run('job_waiting', 'waiting', JSON.stringify({ htmlContent: '<p>é waiting</p>' }), 'queued', null);
    old.close();

    const db = openDb(path);
    const endpoints = db.prepare('SELECT id, key, secret FROM webhook_endpoints ORDER BY created_at').all() as Array<{
      id: string;
      key: string;
      secret: string;
    }>;
    const jobs = db.prepare('SELECT id, request, request_bytes FROM jobs ORDER BY id').all();
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    db.exec("DELETE FROM jobs WHERE id = 'job_waiting'"); // so that the server below renders nothing
    db.close();
    expect(endpoints.map((endpoint) => endpoint.secret)).toEqual(secrets);
    for (const endpoint of endpoints) expect(endpoint.key).toMatch(/^whk_[0-9a-f]{64}$/);
    expect(endpoints[0]!.key).not.toBe(endpoints[1]!.key);
    const waiting = JSON.stringify({ htmlContent: '<p>é waiting</p>' });
    expect(jobs).toEqual([
      { id: 'job_done', request: null, request_bytes: finished.length },
      { id: 'job_waiting', request: waiting, request_bytes: Buffer.byteLength(waiting) },
    ]);

    // A server on the migrated data dir: the receiver's old secret still verifies, the Bearer is the new key.
    const server = await startServer({ dataDir }, undefined, { realClock: true });
    try {
      await server.deps.webhooks.remove('wh_second', server.clock.now());
      const arrival = await deliverOne(server, hook);
      expect(arrival.headers.authorization).toBe(`Bearer ${endpoints[0]!.key}`);
      expect(verifies(secrets[0]!, arrival)).toBe(true);
    } finally {
      await server.close();
      hook.close();
    }
  }, 30_000);
});
