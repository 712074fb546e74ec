/** GET, POST /api/webhooks and DELETE /api/webhooks/:id: the same endpoints as `pdfrender webhooks`. */
import type { Hono } from 'hono';
import { PdfRenderError } from '../errors.js';
import type { AppDeps } from './deps.js';
import { checkWebhookUrl } from '../webhooks/webhook-policy.js';
import { readBody } from './read-body.js';

/** Mount the routes on `app`. */
export function webhooksRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/webhooks', (c) => c.json({ outcome: 'SUCCESS', webhooks: deps.webhooks.list().map(({ secret: _secret, ...endpoint }) => endpoint) }));
  app.post('/api/webhooks', async (c) => {
    const body = await readBody(c);
    const url = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).url : undefined;
    if (typeof url !== 'string') throw new PdfRenderError('VALIDATION_FAILED', 'url is required', { fieldErrors: { url: ['is required: the http or https URL to notify'] } });
    // The secret is shown once, here, as `pdfrender webhooks add` shows it once.
    const checked = await checkWebhookUrl(url, deps.config.allowPrivateWebhooks);
    return c.json({ outcome: 'SUCCESS', ...deps.webhooks.add(checked, deps.clock.now()) }, 201);
  });
  app.delete('/api/webhooks/:id', (c) => {
    if (!deps.webhooks.remove(c.req.param('id'))) throw new PdfRenderError('NOT_FOUND', `no webhook endpoint with id ${c.req.param('id')}`);
    return c.json({ outcome: 'SUCCESS' });
  });
}
