/**
 * The Standard Webhooks secret format, `whsec_` + base64 of the key bytes: minted where endpoints
 * are stored, read where deliveries are signed.
 */
import { randomBytes } from 'node:crypto';

const secretPrefix = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `${secretPrefix}${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret (with or without its `whsec_` prefix). */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(secretPrefix) ? secret.slice(secretPrefix.length) : secret, 'base64');
}
