/**
 * GET, POST /api/webhooks, DELETE /api/webhooks/:id and POST /api/webhooks/:id/rotate: the same
 * endpoints as `pdfrender webhooks`.
 */
import type { Hono } from 'hono';
import { z } from 'zod';
import { PdfRenderError } from '../errors.js';
import { booleanField } from '../fields.js';
import { parseWith } from '../request.js';
import { withoutCredentials } from '../store/webhook-endpoints.js';
import type { AppDeps } from './deps.js';
import { checkWebhookUrl } from '../webhooks/webhook-policy.js';
import { readBody } from './read-body.js';

/** What POST /api/webhooks/:id/rotate replaces; neither named means both. */
export const rotateRequestSchema = z
  .strictObject({
    key: booleanField('replace the key, the Bearer token of its deliveries'),
    secret: booleanField('replace the signing secret'),
  })
  .describe('what to replace; neither named (or no body) replaces both');

/** Mount the routes on `app`. */
export function webhooksRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/webhooks', (c) => c.json({ outcome: 'SUCCESS', webhooks: deps.webhooks.list().map(withoutCredentials) }));
  app.post('/api/webhooks', async (c) => {
    const body = await readBody(c);
    const url = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).url : undefined;
    if (typeof url !== 'string') throw new PdfRenderError('VALIDATION_FAILED', 'url is required', { fieldErrors: { url: ['is required: the http or https URL to notify'] } });
    // The key and secret are shown once, here, as `pdfrender webhooks add` shows them once.
    const checked = await checkWebhookUrl(url, deps.config.allowPrivateWebhooks);
    const endpoint = await deps.write(() => deps.webhooks.add(checked, deps.clock.now()));
    await deps.storage.confirm();
    return c.json({ outcome: 'SUCCESS', ...endpoint }, 201);
  });
  app.post('/api/webhooks/:id/rotate', async (c) => {
    // An empty body (no Content-Type needed) rotates both.
    const empty = c.req.header('content-length') === '0' || (!c.req.header('content-type') && (await c.req.arrayBuffer()).byteLength === 0);
    const which = parseWith(rotateRequestSchema, empty ? {} : await readBody(c));
    const both = !which.key && !which.secret;
    const endpoint = await deps.write(() => deps.webhooks.rotate(c.req.param('id'), { key: both || which.key, secret: both || which.secret }));
    await deps.storage.confirm();
    if (!endpoint) throw new PdfRenderError('NOT_FOUND', `no webhook endpoint with id ${c.req.param('id')}`);
    return c.json({ outcome: 'SUCCESS', ...endpoint });
  });
  app.delete('/api/webhooks/:id', async (c) => {
    const removed = await deps.write(() => deps.webhooks.remove(c.req.param('id')));
    await deps.storage.confirm();
    if (!removed) throw new PdfRenderError('NOT_FOUND', `no webhook endpoint with id ${c.req.param('id')}`);
    return c.json({ outcome: 'SUCCESS' });
  });
}
