/**
 * GET, POST /api/webhooks, DELETE /api/webhooks/:id, POST /api/webhooks/:id/rotate and
 * POST /api/webhooks/:id/enable: the same endpoints as `pdfrender webhooks`. With auth on, a key
 * sees and manages only the endpoints it added (another's is 404, as an id nobody has), and they
 * receive only its jobs' events; the operator's `pdfrender webhooks`, and an --admin-key, see them all.
 */
import type { Hono } from 'hono';
import type { z } from 'zod';
import type { webhookAnswers } from '../api/api-answers.js';
import { addWebhookRequestSchema, rotateRequestSchema } from '../api/webhook-requests.js';
import { PdfRenderError } from '../../errors.js';
import { parseWith } from '../../request.js';
import { withoutCredentials } from '../../store/webhook-endpoint-rules.js';
import type { AppDeps } from '../deps.js';
import { checkWebhookUrl } from '../../webhooks/webhook-policy.js';
import { readBody } from './read-body.js';
import { keyOf, viewerOf } from '../edge/caller.js';
import { everyOwner, noOwner } from '../../store/owners.js';

/** The 404 of a route given an id no endpoint has. */
const noEndpoint = (id: string) => new PdfRenderError('NOT_FOUND', `no webhook endpoint with id ${id}`);

/** The answer of each webhook route, as api-answers.ts describes it. */
type Answer<K extends keyof typeof webhookAnswers> = z.infer<(typeof webhookAnswers)[K]>;

/** Mount the routes on `app`. */
export function webhooksRoutes(app: Hono<{ Variables: { apiKey: string | undefined } }>, deps: AppDeps): void {
  app.get('/api/webhooks', async (c) =>
    c.json({
      outcome: 'SUCCESS',
      webhooks: (await deps.webhooks.list(viewerOf(c, deps.config))).map((endpoint) => withoutCredentials(endpoint)),
    } satisfies Answer<'list'>),
  );
  app.post('/api/webhooks', async (c) => {
    const { url, global } = parseWith(addWebhookRequestSchema, await readBody(c));
    // A global endpoint hears every key's jobs: only an admin key (or auth off, a developer box) adds one.
    if (global && viewerOf(c, deps.config) !== undefined)
      throw new PdfRenderError('VALIDATION_FAILED', 'only an --admin-key may add a global endpoint', {
        fieldErrors: { global: ['needs an --admin-key'] },
      });
    const checked = await checkWebhookUrl(url, deps.config.allowPrivateWebhooks);
    const owner = global ? everyOwner : (keyOf(c) ?? noOwner);
    const result = await deps.webhooks.addOrEnable(checked, deps.clock.now(), owner);
    await deps.storage.confirm();
    if (!result.created && result.released > 0) deps.wakeSender();
    // The key and secret are shown once, here, as `pdfrender webhooks add` shows them once; a
    // disabled endpoint enabled again keeps them and does not show them again.
    if (result.created) {
      // The owner is the caller's own key (as a digest): not part of the answer.
      const { created: _created, owner: _owner, ...endpoint } = result;
      return c.json({ outcome: 'SUCCESS', ...endpoint } satisfies Answer<'created'>, 201);
    }
    return c.json({
      outcome: 'SUCCESS',
      ...withoutCredentials(result.endpoint),
      reenabled: true,
      released: result.released,
    } satisfies Answer<'reenabled'>);
  });
  app.post('/api/webhooks/:id/enable', async (c) => {
    const enabled = await deps.webhooks.enable(c.req.param('id'), deps.clock.now(), viewerOf(c, deps.config));
    await deps.storage.confirm();
    if (!enabled) throw noEndpoint(c.req.param('id'));
    if (enabled.released > 0) deps.wakeSender();
    return c.json({
      outcome: 'SUCCESS',
      ...withoutCredentials(enabled.endpoint),
      wasDisabled: enabled.wasDisabled,
      released: enabled.released,
    } satisfies Answer<'enabled'>);
  });
  app.post('/api/webhooks/:id/rotate', async (c) => {
    // An empty body (no Content-Type needed) rotates both.
    const empty =
      c.req.header('content-length') === '0' ||
      (!c.req.header('content-type') && (await c.req.arrayBuffer()).byteLength === 0);
    const which = parseWith(rotateRequestSchema, empty ? {} : await readBody(c));
    const both = !which.key && !which.secret;
    const endpoint = await deps.webhooks.rotate(
      c.req.param('id'),
      { key: both || which.key, secret: both || which.secret },
      viewerOf(c, deps.config),
    );
    await deps.storage.confirm();
    if (!endpoint) throw noEndpoint(c.req.param('id'));
    const { owner: _owner, ...rotated } = endpoint;
    return c.json({ outcome: 'SUCCESS', ...rotated } satisfies Answer<'rotated'>);
  });
  app.delete('/api/webhooks/:id', async (c) => {
    const removed = await deps.webhooks.remove(c.req.param('id'), deps.clock.now(), viewerOf(c, deps.config));
    await deps.storage.confirm();
    if (!removed) throw noEndpoint(c.req.param('id'));
    return c.json({ outcome: 'SUCCESS', unsent: removed.unsent } satisfies Answer<'removed'>);
  });
}
