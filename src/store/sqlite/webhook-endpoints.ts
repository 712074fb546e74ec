/**
 * Webhook endpoints, kept in SQLite so that `pdfrender webhooks add/remove/rotate/enable` take
 * effect at once in a server running on the same data dir: it reads them from the database, not
 * from a copy. Each has a key (the Bearer token of its deliveries) and, apart from it, the secret
 * that signs them. An endpoint whose receiver answered 410 Gone is disabled: its deliveries are
 * held, never dropped, and enabling it (or adding its URL again) sends them, in the order the
 * events happened. Each change of state and its deliveries' is one transaction.
 */
import type { Enabled, ListedEndpoint, Rotation, Sync, WebhookEndpoint, WebhookEndpoints } from '../contract.js';
import { sqliteDialect } from '../statements/dialect.js';
import { rotationParams, webhookEndpointStatements } from '../statements/webhook-endpoints.js';
import type { Db } from './open-db.js';
import { newEndpoint, validateWebhookUrl } from '../webhook-endpoint-rules.js';

const statements = webhookEndpointStatements(sqliteDialect);

/** The webhook endpoint table of a data dir. */
export function webhookEndpoints(db: Db) {
  const insert = db.prepare<WebhookEndpoint>(statements.insert);
  const replace = db.prepare<ReturnType<typeof rotationParams>, WebhookEndpoint>(statements.rotate);
  const listing = db.prepare<[], ListedEndpoint>(statements.list);
  const byId = db.prepare<{ id: string }, WebhookEndpoint>(statements.get);
  const anyEndpoint = db.prepare<[], { found: number }>(statements.any);
  const disabledWithUrl = db.prepare<{ url: string }, { id: string }>(statements.disabledWithUrl);
  const setDisabled = db.prepare<{ id: string; disabledAt: number | null }>(statements.setDisabled);
  const deleteEndpoint = db.prepare<{ id: string }>(statements.delete);
  const holdDeliveries = db.prepare<{ id: string; now: number }>(statements.holdDeliveries);
  const releaseDeliveries = db.prepare<{ id: string; now: number }>(statements.releaseDeliveries);
  const dropDeliveries = db.prepare<{ id: string; now: number }>(statements.dropDeliveries);

  const disable = db.transaction((id: string, now: number) => {
    if (setDisabled.run({ id, disabledAt: now }).changes > 0) holdDeliveries.run({ id, now });
  });
  const enable = db.transaction((id: string, now: number): Enabled | null => {
    const found = byId.get({ id });
    if (!found) return null;
    setDisabled.run({ id, disabledAt: null });
    // Also releases any held while it was active (an attempt that settled after it was enabled).
    return {
      endpoint: { ...found, disabledAt: null },
      wasDisabled: found.disabledAt !== null,
      released: releaseDeliveries.run({ id, now }).changes,
    };
  });
  const addOrEnable = db.transaction(
    (url: string, now: number): ({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled) => {
      const disabled = disabledWithUrl.get({ url });
      if (disabled) return { created: false, ...enable(disabled.id, now)! };
      return { created: true, ...add(url, now) };
    },
  );
  const remove = db.transaction((id: string, now: number): { unsent: number } | null => {
    if (!byId.get({ id })) return null;
    const unsent = dropDeliveries.run({ id, now }).changes;
    deleteEndpoint.run({ id });
    return { unsent };
  });
  const add = (url: string, now: number): WebhookEndpoint => {
    const endpoint = newEndpoint(url, now);
    insert.run(endpoint);
    return endpoint;
  };
  return {
    add: (url: string, now: number): WebhookEndpoint => add(validateWebhookUrl(url), now),
    addOrEnable: (url: string, now: number) => addOrEnable.immediate(validateWebhookUrl(url), now),
    enable: (id: string, now: number): Enabled | null => enable.immediate(id, now),
    // One statement: the change and the row as it then is.
    rotate: (id: string, which: Rotation): WebhookEndpoint | null => replace.get(rotationParams(id, which)) ?? null,
    list: (): ListedEndpoint[] => listing.all(),
    any: (): boolean => anyEndpoint.get()!.found === 1,
    get: (id: string): WebhookEndpoint | null => byId.get({ id }) ?? null,
    disable(id: string, now: number): void {
      disable.immediate(id, now);
    },
    remove: (id: string, now: number): { unsent: number } | null => remove.immediate(id, now),
  } satisfies Sync<WebhookEndpoints>;
}
