/**
 * Webhook endpoints: Standard Webhooks signing (the specification's known answer, and verification
 * by the standardwebhooks package), the endpoint store, the CLI and the HTTP routes.
 */
import { readdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { isPdfRenderError } from '../src/errors.js';
import { openDb } from '../src/store/sqlite/open-db.js';
import { webhookEndpoints } from '../src/store/sqlite/webhook-endpoints.js';
import { newWebhookSecret } from '../src/webhook-secret.js';
import { signWebhook } from '../src/webhooks/signing.js';
import { pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { startServer } from './support/server.js';

afterAll(removeTempDirs);

describe('signing', () => {
  it('matches the Standard Webhooks known-answer test', () => {
    expect(
      signWebhook(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('makes secrets of 32 random bytes that the standardwebhooks package verifies', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    const body = JSON.stringify({ type: 'PDF_RENDERED', payload: { id: 'invoice-1' } });
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signWebhook(secret, 'evt_1', timestamp, body),
    };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });
});

describe('endpoint store', () => {
  it('adds, lists and removes endpoints, with http or https URLs only', async () => {
    const db = openDb(resolve(await tempDir(), 'pdfrender.db'));
    try {
      const endpoints = webhookEndpoints(db);
      const added = endpoints.add('https://example.com/hook', 1000);
      expect(added).toMatchObject({ url: 'https://example.com/hook', createdAt: 1000, disabledAt: null });
      expect(added.id).toMatch(/^wh_[\w-]{12}$/);
      expect(endpoints.list()).toEqual([{ ...added, held: 0 }]);
      for (const bad of ['ftp://example.com/x', 'file:///etc/passwd', 'not a url', '/relative']) {
        const error = (() => {
          try {
            endpoints.add(bad, 1);
          } catch (e) {
            return e;
          }
        })();
        expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
      }
      expect(endpoints.remove(added.id, 2000)).toEqual({ unsent: 0 });
      expect(endpoints.remove(added.id, 2000)).toBeNull();
      expect(endpoints.list()).toEqual([]);
    } finally {
      db.close();
    }
  });
});

/** The CLI run in `cwd`, with its standard output as text. */
async function webhooksCli(args: string[], cwd: string) {
  const run = await pdfrender(args, { cwd });
  return { ...run, stdout: run.stdout.toString() };
}

describe('pdfrender webhooks', () => {
  it('says there is no data dir where there is none (exit 2, naming the folder and --data-dir), creating nothing', async () => {
    const empty = await tempDir();
    for (const args of [
      ['webhooks', 'list'],
      ['webhooks', 'deliveries'],
      ['webhooks', 'remove', 'wh_x'],
    ]) {
      const run = await webhooksCli(args, empty);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr.trim().split('\n'), args.join(' ')).toEqual([
        expect.stringContaining(`no pdfrender data dir in ${empty} `),
      ]);
      expect(run.stderr).toContain('--data-dir <dir>');
      expect(run.stdout).toBe('');
    }
    // A --data-dir that names nowhere is named itself.
    const elsewhere = await webhooksCli(['webhooks', 'list', '--data-dir', 'no-such'], empty);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain(`no pdfrender data dir in ${resolve(empty, 'no-such')} `);
    expect(await readdir(empty)).toEqual([]);
  });

  it('adds, lists and removes endpoints that a running server on the same data dir sees at once', async () => {
    const server = await startServer();
    const dataDir = server.deps.config.dataDir;
    try {
      // A receiver on this machine is refused unless asked for.
      const refused = await webhooksCli(['webhooks', 'add', 'http://127.0.0.1:9/hook', '--data-dir', dataDir], dataDir);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('127.0.0.1 is not a public address (loopback)');
      expect(refused.stderr).toContain('--allow-private-webhooks');
      const added = await webhooksCli(
        ['webhooks', 'add', 'http://127.0.0.1:9/hook', '--data-dir', dataDir, '--allow-private-webhooks'],
        dataDir,
      );
      expect(added.code).toBe(0);
      const [, id] = /^id: +(wh_[\w-]+)$/m.exec(added.stdout)!;
      expect(added.stdout).toMatch(/^secret: whsec_[A-Za-z0-9+/]{43}=$/m);
      expect(added.stdout).toMatch(/^key: {4}whk_[0-9a-f]{64}$/m);
      const seen = await (await fetch(`${server.url}/api/webhooks`)).json();
      expect(seen.webhooks).toEqual([
        { id, url: 'http://127.0.0.1:9/hook', createdAt: expect.any(Number), disabledAt: null, held: 0 },
      ]);

      const listed = await webhooksCli(['webhooks', 'list', '--data-dir', dataDir], dataDir);
      expect(listed.stdout.trim()).toBe(`${id}  http://127.0.0.1:9/hook  no key  active`);
      const asJson = JSON.parse(
        (await webhooksCli(['webhooks', 'list', '--json', '--show-secrets', '--data-dir', dataDir], dataDir)).stdout,
      );
      expect(asJson).toEqual([
        expect.objectContaining({ id, key: expect.stringMatching(/^whk_/), secret: expect.stringMatching(/^whsec_/) }),
      ]);
      const hidden = (await webhooksCli(['webhooks', 'list', '--json', '--data-dir', dataDir], dataDir)).stdout;
      // The operator sees whose it is ('' is no key's: added without --for-key or --global).
      expect(JSON.parse(hidden)).toEqual([
        { id, url: 'http://127.0.0.1:9/hook', createdAt: expect.any(Number), disabledAt: null, held: 0, owner: '' },
      ]);

      expect((await webhooksCli(['webhooks', 'remove', id!, '--data-dir', dataDir], dataDir)).stdout.trim()).toBe(
        `removed ${id}`,
      );
      expect((await (await fetch(`${server.url}/api/webhooks`)).json()).webhooks).toEqual([]);

      const again = await webhooksCli(['webhooks', 'remove', id!, '--data-dir', dataDir], dataDir);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain(`no webhook endpoint with id ${id}`);
      const bad = await webhooksCli(['webhooks', 'add', 'ftp://example.com', '--data-dir', dataDir], dataDir);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('webhook URLs must be http or https, not ftp:');
    } finally {
      await server.close();
    }
  });
});

describe('/api/webhooks', () => {
  it('adds (JSON or form), lists without secrets, and deletes endpoints', async () => {
    const server = await startServer();
    try {
      const created = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/a' }),
      });
      expect(created.status).toBe(201);
      const endpoint = await created.json();
      expect(endpoint).toMatchObject({
        outcome: 'SUCCESS',
        url: 'https://example.com/a',
        key: expect.stringMatching(/^whk_[0-9a-f]{64}$/),
        secret: expect.stringMatching(/^whsec_/),
      });
      const form = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        body: new URLSearchParams({ url: 'https://example.com/b' }),
      });
      expect(form.status).toBe(201);
      const list = await (await fetch(`${server.url}/api/webhooks`)).json();
      expect(list.webhooks.map((w: { url: string }) => w.url)).toEqual([
        'https://example.com/a',
        'https://example.com/b',
      ]);
      expect(JSON.stringify(list)).not.toContain('whsec_');
      expect(JSON.stringify(list)).not.toContain('whk_');
      expect((await fetch(`${server.url}/api/webhooks/${endpoint.id}`, { method: 'DELETE' })).status).toBe(200);
      const missing = await fetch(`${server.url}/api/webhooks/${endpoint.id}`, { method: 'DELETE' });
      expect(missing.status).toBe(404);
      expect((await missing.json()).outcome).toBe('NOT_FOUND');
    } finally {
      await server.close();
    }
  });

  it('answers 422 for a bad or missing URL and needs the API key when keys are configured', async () => {
    const server = await startServer({ apiKeys: ['k'] });
    try {
      const post = (body: unknown, auth = true) =>
        fetch(`${server.url}/api/webhooks`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...(auth ? { Authorization: 'Bearer k' } : {}) },
          body: JSON.stringify(body),
        });
      expect((await post({ url: 'https://example.com' }, false)).status).toBe(401);
      expect((await fetch(`${server.url}/api/webhooks`)).status).toBe(401);
      const bad = await post({ url: 'gopher://example.com' });
      expect(bad.status).toBe(422);
      expect((await bad.json()).errors).toEqual({ url: ['must be an absolute http or https URL'] });
      const none = await post({});
      expect(none.status).toBe(422);
      expect((await none.json()).errors.url[0]).toMatch(/^is required/);
      const wrongMethod = await fetch(`${server.url}/api/webhooks`, {
        method: 'PUT',
        headers: { Authorization: 'Bearer k' },
      });
      expect(wrongMethod.status).toBe(405);
      expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, POST');
    } finally {
      await server.close();
    }
  });
});
