/**
 * Webhook URLs under the network policy: refused when added if they point at this machine or a
 * private network (unless --allow-private-webhooks), and checked again on every delivery with the
 * address pinned, so a name that later resolves to loopback gets nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { deliveries } from '../src/store/sqlite/deliveries.js';
import { checkWebhookUrl } from '../src/webhooks/webhook-policy.js';
import { removeTempDirs } from './support/files.js';
import { startServer } from './support/server.js';
import { until } from './support/wait.js';

afterAll(removeTempDirs);

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

  it('refuses a name that resolves to a private address', async () => {
    const resolver = async () => ['192.168.1.10'];
    await expect(checkWebhookUrl('https://hooks.example.test/x', false, resolver)).rejects.toThrow(
      'hooks.example.test resolves to 192.168.1.10, which is not a public address (private)',
    );
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
        errors: { url: [expect.stringContaining('not a public address (loopback)')] },
      });
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
        lastError: expect.stringContaining('refused by the network policy: rebind.example.test resolves to 127.0.0.1'),
      });
      expect(hits).toBe(0);
    } finally {
      await server.close();
      receiver.close();
    }
  });
});
