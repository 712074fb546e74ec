/**
 * Webhook URLs under the network policy: refused when added if they point at this machine or a
 * private network (unless --allow-private-webhooks), and checked again on every delivery with the
 * address pinned, so a name that later resolves to loopback gets nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { PdfRenderError } from '../src/errors.js';
import type { Resolver } from '../src/network/resolve-checked.js';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { checkWebhookUrl } from '../src/webhooks/webhook-policy.js';
import { removeTempDirs } from './support/files.js';
import { startServer } from './support/server.js';
import { until } from './support/wait.js';

afterAll(removeTempDirs);

// What a caller is told of any webhook URL the network policy refuses.
const safeReason =
  'blocked by the network policy (public addresses only); a receiver on this machine or a private network needs --allow-private-webhooks';

async function refusalOf(url: string, resolver: Resolver): Promise<PdfRenderError> {
  const error = await checkWebhookUrl(url, false, resolver).then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(PdfRenderError);
  return error as PdfRenderError;
}

describe('checkWebhookUrl', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://localhost:8080/',
    'http://[::1]/',
    'http://169.254.169.254/latest',
    'http://10.0.0.5/',
    'http://0x7f000001/',
    'http://[::ffff:10.0.0.1]/',
    'HTTP://LOCALHOST./',
  ])('refuses %s by default and allows it with --allow-private-webhooks', async (url) => {
    await expect(checkWebhookUrl(url, false)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: { url: [expect.stringContaining('--allow-private-webhooks')] },
    });
    await expect(checkWebhookUrl(url, true)).resolves.toBe(new URL(url).href);
  });

  // Issue 27 §5: the refusal once said "hooks.example.test resolves to 192.168.1.10" and, for a
  // missing name, "ENOTFOUND": an oracle for the server's DNS. The caller now reads the policy's
  // reason alone, the same for both; the address and the DNS error are the operator's detail.
  it('refuses a name that resolves to a private address without saying the address', async () => {
    const refusal = await refusalOf('https://hooks.example.test/x', async () => ['192.168.1.10']);
    expect(refusal.fieldErrors).toEqual({ url: [safeReason] });
    expect(JSON.stringify([refusal.message, refusal.fieldErrors])).not.toContain('192.168');
    expect(refusal.detail).toContain('hooks.example.test resolves to 192.168.1.10, which is not a public address');
  });

  it('refuses a name that does not exist in the same words as a private one, without the DNS error', async () => {
    const missing = await refusalOf('https://hooks.example.test/x', async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.test'), { code: 'ENOTFOUND' });
    });
    const internal = await refusalOf('https://hooks.example.test/x', async () => ['10.1.2.3']);
    expect([missing.message, missing.fieldErrors]).toEqual([internal.message, internal.fieldErrors]);
    expect(missing.message).not.toMatch(/ENOTFOUND|resolve/);
    expect(missing.detail).toContain('ENOTFOUND');
  });

  it('accepts a name that resolves to public addresses only', async () => {
    await expect(checkWebhookUrl('https://hooks.example.test/x', false, async () => ['93.184.216.34'])).resolves.toBe(
      'https://hooks.example.test/x',
    );
  });
});

describe('webhook policy on a server', () => {
  it('POST /api/webhooks answers 422 for a loopback URL', async () => {
    const server = await startServer({ allowPrivateWebhooks: false });
    try {
      const response = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'http://127.0.0.1:9/hook' }),
      });
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        outcome: 'VALIDATION_FAILED',
        errors: { url: [safeReason] },
      });
    } finally {
      await server.close();
    }
  });

  it('POST /api/webhooks tells the caller neither the DNS error of a missing name nor that it is missing', async () => {
    const server = await startServer({ allowPrivateWebhooks: false });
    try {
      // .invalid never resolves (RFC 6761), so the system resolver fails it without the internet.
      const response = await fetch(`${server.url}/api/webhooks`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: 'http://db.corp.invalid/hook' }),
      });
      expect(response.status).toBe(422);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ outcome: 'VALIDATION_FAILED', errors: { url: [safeReason] } });
      expect(text).not.toMatch(/ENOTFOUND|EAI_AGAIN|resolve/);
      // The operator's log has what the caller was not told.
      expect(server.events).toContainEqual(
        expect.objectContaining({
          message: 'request refused',
          detail: expect.stringMatching(/db\.corp\.invalid.*cannot resolve db\.corp\.invalid: (ENOTFOUND|EAI_AGAIN)/),
        }),
      );
    } finally {
      await server.close();
    }
  });

  it('re-checks on delivery: a host that now resolves to loopback gets nothing', async () => {
    let hits = 0;
    const receiver = createServer((_req, res) => {
      hits += 1;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as AddressInfo).port;
    // The name was public when it was added; by the time of delivery it resolves to loopback.
    const server = await startServer({ allowPrivateWebhooks: false }, undefined, {
      resolver: async () => ['127.0.0.1'],
      realClock: true,
    });
    try {
      await server.deps.webhooks.add(`http://rebind.example.test:${port}/hook`, Date.now());
      deliveries(server.db).queueEvent(
        'job_1',
        { type: 'PDF_RENDERED', payload: { id: 'doc', jobId: 'job_1' } },
        Date.now(),
      );
      server.deps.wakeSender();
      const outbox = deliveries(server.db);
      const entry = await until(
        () => outbox.log(10).find((delivery) => delivery.attempts === 1),
        'the first attempt',
        10_000,
      );
      expect(entry).toMatchObject({
        status: 'pending',
        attempts: 1,
        lastError: 'refused by the network policy: blocked by the network policy (public addresses only)',
      });
      expect(hits).toBe(0);
      // The endpoint's owner reads lastError back; only the operator's log says where the name pointed.
      expect(server.events).toContainEqual(
        expect.objectContaining({
          message: 'webhook delivery attempt failed',
          detail: expect.stringContaining('rebind.example.test resolves to 127.0.0.1'),
        }),
      );
    } finally {
      await server.close();
      receiver.close();
    }
  });
});
