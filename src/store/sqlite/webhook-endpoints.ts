/**
 * Webhook endpoints, kept in SQLite so that `pdfrender webhooks add/remove/rotate/enable` take
 * effect at once in a server running on the same data dir: it reads them from the database, not
 * from a copy. Each has a key (the Bearer token of its deliveries) and, apart from it, the secret
 * that signs them. An endpoint whose receiver answered 410 Gone is disabled: its deliveries are
 * held, never dropped, and enabling it (or adding its URL again) sends them, in the order the
 * events happened. Each change of state and its deliveries' is one transaction.
 */
import { newWebhookSecret } from '../../webhook-secret.js';
import type { Enabled, ListedEndpoint, Rotation, Sync, WebhookEndpoint, WebhookEndpoints } from '../contract.js';
import type { Db } from './open-db.js';
import { newEndpoint, newWebhookKey, validateWebhookUrl } from '../webhook-endpoint-rules.js';

interface EndpointRow {
  id: string;
  url: string;
  key: string;
  secret: string;
  created_at: number;
  disabled_at: number | null;
}

const fromRow = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  key: row.key,
  secret: row.secret,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
});

/** The webhook endpoint table of a data dir. */
export function webhookEndpoints(db: Db) {
  const insert = db.prepare('INSERT INTO webhook_endpoints (id, url, key, secret, created_at) VALUES (?, ?, ?, ?, ?)');
  const replace = db.prepare<{ id: string; key: string | null; secret: string | null }>(
    'UPDATE webhook_endpoints SET key = coalesce(@key, key), secret = coalesce(@secret, secret) WHERE id = @id',
  );
  const listing = db.prepare<[], EndpointRow & { held: number }>(
    `SELECT e.*, (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'held') AS held
     FROM webhook_endpoints e ORDER BY e.created_at, e.rowid`,
  );
  const byId = db.prepare<[string], EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = ?');
  const anyEndpoint = db.prepare<[], { found: number }>('SELECT EXISTS (SELECT 1 FROM webhook_endpoints) AS found');
  const disabledWithUrl = db.prepare<[string], EndpointRow>(
    'SELECT * FROM webhook_endpoints WHERE url = ? AND disabled_at IS NOT NULL ORDER BY created_at, rowid LIMIT 1',
  );
  const setDisabled = db.prepare<[number | null, string]>('UPDATE webhook_endpoints SET disabled_at = ? WHERE id = ?');
  const deleteEndpoint = db.prepare<[string]>('DELETE FROM webhook_endpoints WHERE id = ?');
  // Attempts in flight (claimed_until ahead) are left to settle: their outcome decides, and the
  // sender holds whatever comes back due for a disabled endpoint.
  const settled = '(claimed_until IS NULL OR claimed_until <= @now)';
  const holdDeliveries = db.prepare<{ id: string; now: number }>(
    `UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = @id AND status = 'pending' AND ${settled}`,
  );
  // Released in the order the events happened: all due now, and the sender takes them by id.
  const releaseDeliveries = db.prepare<{ id: string; now: number }>(
    "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = @now, last_error = NULL, claimed_until = NULL WHERE endpoint_id = @id AND status = 'held'",
  );
  const dropDeliveries = db.prepare<{ id: string; now: number }>(
    `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was removed' WHERE endpoint_id = @id AND status IN ('pending', 'held') AND ${settled}`,
  );
  const disable = db.transaction((id: string, now: number) => {
    if (setDisabled.run(now, id).changes > 0) holdDeliveries.run({ id, now });
  });
  const enable = db.transaction((id: string, now: number): Enabled | null => {
    const row = byId.get(id);
    if (!row) return null;
    setDisabled.run(null, id);
    // Also releases any held while it was active (an attempt that settled after it was enabled).
    return {
      endpoint: fromRow({ ...row, disabled_at: null }),
      wasDisabled: row.disabled_at !== null,
      released: releaseDeliveries.run({ id, now }).changes,
    };
  });
  const addOrEnable = db.transaction(
    (url: string, now: number): ({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled) => {
      const disabled = disabledWithUrl.get(url);
      if (disabled) return { created: false, ...enable(disabled.id, now)! };
      return { created: true, ...add(url, now) };
    },
  );
  const remove = db.transaction((id: string, now: number): { unsent: number } | null => {
    if (!byId.get(id)) return null;
    const unsent = dropDeliveries.run({ id, now }).changes;
    deleteEndpoint.run(id);
    return { unsent };
  });
  const add = (url: string, now: number): WebhookEndpoint => {
    const endpoint = newEndpoint(url, now);
    insert.run(endpoint.id, endpoint.url, endpoint.key, endpoint.secret, now);
    return endpoint;
  };
  const rotate = db.transaction((id: string, which: Rotation): WebhookEndpoint | null => {
    replace.run({ id, key: which.key ? newWebhookKey() : null, secret: which.secret ? newWebhookSecret() : null });
    const row = byId.get(id);
    return row ? fromRow(row) : null;
  });
  return {
    add: (url: string, now: number): WebhookEndpoint => add(validateWebhookUrl(url), now),
    addOrEnable: (url: string, now: number) => addOrEnable.immediate(validateWebhookUrl(url), now),
    enable: (id: string, now: number): Enabled | null => enable.immediate(id, now),
    rotate: (id: string, which: Rotation): WebhookEndpoint | null => rotate.immediate(id, which),
    list(): ListedEndpoint[] {
      return listing.all().map((row) => ({ ...fromRow(row), held: row.held }));
    },
    any: (): boolean => anyEndpoint.get()!.found === 1,
    get(id: string): WebhookEndpoint | null {
      const row = byId.get(id);
      return row ? fromRow(row) : null;
    },
    disable(id: string, now: number): void {
      disable.immediate(id, now);
    },
    remove: (id: string, now: number): { unsent: number } | null => remove.immediate(id, now),
  } satisfies Sync<WebhookEndpoints>;
}
