/**
 * What the webhook routes take, as zod schemas: validated by the routes (routes/webhooks-routes.ts)
 * and described by the OpenAPI document from the same schemas.
 */
import { z } from 'zod';
import { booleanField } from '../../fields.js';

/** What POST /api/webhooks/:id/rotate replaces; neither named means both. */
export const rotateRequestSchema = z
  .strictObject({
    key: booleanField('replace the key, the Bearer token of its deliveries'),
    secret: booleanField('replace the signing secret'),
  })
  .describe('what to replace; neither named (or no body) replaces both');

/** What POST /api/webhooks takes: the URL to notify, and (an admin key only) whether it hears every key's jobs. */
export const addWebhookRequestSchema = z.object({
  url: z.string({ error: 'is required: the http or https URL to notify' }).describe('the http or https URL to notify'),
  global: booleanField(
    "the endpoint receives every API key's jobs' events, not only the adding key's (an --admin-key only)",
  ),
});
