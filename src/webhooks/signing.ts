/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
 * keyed with the secret's decoded bytes, so receivers can verify with any Standard Webhooks library.
 */
import { createHmac } from 'node:crypto';
import { webhookSecretKey } from '../webhook-secret.js';

/** The signature header value for one delivery. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', webhookSecretKey(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}
