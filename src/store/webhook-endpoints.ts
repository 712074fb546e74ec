/**
 * Webhook endpoints, kept in SQLite so that `pdfrender webhooks add/remove/rotate` take effect at
 * once in a server running on the same data dir: it reads them from the database, not from a copy.
 * Each has a key (the Bearer token of its deliveries) and, apart from it, the secret that signs them.
 */
import { randomBytes } from 'node:crypto';
import { PdfRenderError } from '../errors.js';
import { newWebhookSecret } from '../webhooks/signing.js';
import type { Db } from './open-db.js';

export interface WebhookEndpoint {
  id: string;
  url: string;
  /** Sent as `Authorization: Bearer <key>` with every delivery; never the signing secret. */
  key: string;
  /** Keys the Standard Webhooks signature; never sent. */
  secret: string;
  createdAt: number;
  /** When a receiver answered 410 Gone, after which nothing more is sent to it; null while active. */
  disabledAt: number | null;
}

interface EndpointRow {
  id: string;
  url: string;
  key: string;
  secret: string;
  created_at: number;
  disabled_at: number | null;
}

const fromRow = (row: EndpointRow): WebhookEndpoint => ({ id: row.id, url: row.url, key: row.key, secret: row.secret, createdAt: row.created_at, disabledAt: row.disabled_at });

/** A new endpoint key: `whk_` + 32 random bytes in hex (the format migration 7 gave existing endpoints). */
export function newWebhookKey(): string {
  return `whk_${randomBytes(32).toString('hex')}`;
}

/** An endpoint without its key and secret, as listings show it. */
export function withoutCredentials(endpoint: WebhookEndpoint): Omit<WebhookEndpoint, 'key' | 'secret'> {
  const { key: _key, secret: _secret, ...rest } = endpoint;
  return rest;
}

/** Which of an endpoint's credentials to replace. */
export interface Rotation {
  key: boolean;
  secret: boolean;
}

/** Check that `url` is an absolute http or https URL; returns it normalised. */
export function validateWebhookUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new PdfRenderError('VALIDATION_FAILED', `"${url}" is not a URL`, { fieldErrors: { url: ['must be an absolute http or https URL'] } });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new PdfRenderError('VALIDATION_FAILED', `webhook URLs must be http or https, not ${parsed.protocol}`, { fieldErrors: { url: ['must be an absolute http or https URL'] } });
  }
  return parsed.href;
}

/** The webhook endpoint table of a data dir. */
export function webhookEndpoints(db: Db) {
  const insert = db.prepare('INSERT INTO webhook_endpoints (id, url, key, secret, created_at) VALUES (?, ?, ?, ?, ?)');
  const replace = db.prepare<{ id: string; key: string | null; secret: string | null }>(
    'UPDATE webhook_endpoints SET key = coalesce(@key, key), secret = coalesce(@secret, secret) WHERE id = @id',
  );
  const all = db.prepare<[], EndpointRow>('SELECT * FROM webhook_endpoints ORDER BY created_at, rowid');
  const remove = db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?');
  const byId = db.prepare<[string], EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?');
  const disable = db.prepare<[number, string]>('UPDATE webhook_endpoints SET disabled_at = ? WHERE id = ? AND disabled_at IS NULL');
  const rotate = db.transaction((id: string, which: Rotation): WebhookEndpoint | null => {
    replace.run({ id, key: which.key ? newWebhookKey() : null, secret: which.secret ? newWebhookSecret() : null });
    const row = byId.get(id);
    return row ? fromRow(row) : null;
  });
  return {
    /** Add an endpoint with a new key and a new secret. */
    add(url: string, now: number): WebhookEndpoint {
      const endpoint = { id: `wh_${randomBytes(9).toString('base64url')}`, url: validateWebhookUrl(url), key: newWebhookKey(), secret: newWebhookSecret(), createdAt: now, disabledAt: null };
      insert.run(endpoint.id, endpoint.url, endpoint.key, endpoint.secret, now);
      return endpoint;
    },
    /** Replace an endpoint's key, secret or both; the next delivery attempt uses them. Null when there is no such endpoint. */
    rotate: (id: string, which: Rotation): WebhookEndpoint | null => rotate.immediate(id, which),
    /** Every endpoint, oldest first. */
    list(): WebhookEndpoint[] {
      return all.all().map(fromRow);
    },
    /** Endpoints that still receive events. */
    active(): WebhookEndpoint[] {
      return all.all().map(fromRow).filter((endpoint) => endpoint.disabledAt === null);
    },
    /** One endpoint, read afresh (a removed one is null). */
    get(id: string): WebhookEndpoint | null {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    /** Send nothing more to an endpoint (its receiver answered 410 Gone). */
    disable(id: string, now: number): void {
      disable.run(now, id);
    },
    /** Remove an endpoint; false when there was none with that id. */
    remove(id: string): boolean {
      return remove.run(id).changes > 0;
    },
  };
}

export type WebhookEndpoints = ReturnType<typeof webhookEndpoints>;
