/**
 * Standard Webhooks signing: `webhook-signature: v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
 * keyed with the secret's decoded bytes, so receivers can verify with any Standard Webhooks library.
 */
import { createHmac, randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('base64')}`;
}

/** The signature header value for one delivery. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}
