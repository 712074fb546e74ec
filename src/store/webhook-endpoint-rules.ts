/**
 * What both stores do alike with webhook endpoints: a new endpoint's id, key and secret, the URL
 * check, and an endpoint as listings show it (without its credentials).
 */
import { randomBytes } from 'node:crypto';
import { PdfRenderError } from '../errors.js';
import { newWebhookSecret } from '../webhook-secret.js';
import type { WebhookEndpoint } from './contract.js';

/** A new endpoint key: `whk_` + 32 random bytes in hex (the format migration 7 gave existing endpoints). */
export function newWebhookKey(): string {
  return `whk_${randomBytes(32).toString('hex')}`;
}

/** A new active endpoint of `owner` for `url`, with a fresh id, key and secret: what both stores insert. */
export function newEndpoint(url: string, now: number, owner: string): WebhookEndpoint {
  return {
    id: `wh_${randomBytes(9).toString('base64url')}`,
    url,
    key: newWebhookKey(),
    secret: newWebhookSecret(),
    createdAt: now,
    disabledAt: null,
    owner,
  };
}

/** An endpoint as API listings show it: without its key and secret, and without its owner (the caller's own key, as a digest). */
export function withoutCredentials<T extends WebhookEndpoint>(endpoint: T): Omit<T, 'key' | 'secret' | 'owner'> {
  const { key: _key, secret: _secret, owner: _owner, ...rest } = endpoint;
  return rest;
}

/** Check that `url` is an absolute http or https URL; returns it normalised. */
export function validateWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PdfRenderError('VALIDATION_FAILED', `"${url}" is not a URL`, {
      fieldErrors: { url: ['must be an absolute http or https URL'] },
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PdfRenderError('VALIDATION_FAILED', `webhook URLs must be http or https, not ${parsed.protocol}`, {
      fieldErrors: { url: ['must be an absolute http or https URL'] },
    });
  }
  return parsed.href;
}
