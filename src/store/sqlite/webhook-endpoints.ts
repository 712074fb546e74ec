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
import { noOwner } from '../owners.js';

/** Whose endpoints a call sees: null for every endpoint (the operator, or auth off). */
interface Viewing {
  viewer: string | null;
}

const statements = webhookEndpointStatements(sqliteDialect);

/** The webhook endpoint table of a data dir. */
export function webhookEndpoints(db: Db) {
  const insert = db.prepare<WebhookEndpoint>(statements.insert);
  const replace = db.prepare<ReturnType<typeof rotationParams> & Viewing, WebhookEndpoint>(statements.rotate);
  const listing = db.prepare<Viewing, ListedEndpoint>(statements.list);
  const byId = db.prepare<{ id: string }, WebhookEndpoint>(statements.get);
  const seen = db.prepare<{ id: string } & Viewing, WebhookEndpoint>(statements.seen);
  const anyEndpoint = db.prepare<{ owner: string | null }, { found: number }>(statements.any);
  const disabledWithUrl = db.prepare<{ url: string; owner: string }, { id: string }>(statements.disabledWithUrl);
  const reassign = db.prepare<{ id: string; owner: string }, WebhookEndpoint>(statements.assign);
  const dropOthers = db.prepare<{ id: string; owner: string }>(statements.dropOthersDeliveries);
  const assign = db.transaction((id: string, owner: string): WebhookEndpoint | null => {
    const endpoint = reassign.get({ id, owner });
    if (endpoint) dropOthers.run({ id, owner });
    return endpoint ?? null;
  });
  const setDisabled = db.prepare<{ id: string; disabledAt: number | null }>(statements.setDisabled);
  const deleteEndpoint = db.prepare<{ id: string }>(statements.delete);
  const holdDeliveries = db.prepare<{ id: string; now: number }>(statements.holdDeliveries);
  const releaseDeliveries = db.prepare<{ id: string; now: number }>(statements.releaseDeliveries);
  const dropDeliveries = db.prepare<{ id: string; now: number }>(statements.dropDeliveries);

  const disable = db.transaction((id: string, now: number) => {
    if (setDisabled.run({ id, disabledAt: now }).changes > 0) holdDeliveries.run({ id, now });
  });
  const enable = db.transaction((id: string, now: number, viewer: string | null): Enabled | null => {
    const found = seen.get({ id, viewer });
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
    (
      url: string,
      now: number,
      owner: string,
    ): ({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled) => {
      const disabled = disabledWithUrl.get({ url, owner });
      if (disabled) return { created: false, ...enable(disabled.id, now, null)! };
      return { created: true, ...add(url, now, owner) };
    },
  );
  const remove = db.transaction((id: string, now: number, viewer: string | null): { unsent: number } | null => {
    if (!seen.get({ id, viewer })) return null;
    const unsent = dropDeliveries.run({ id, now }).changes;
    deleteEndpoint.run({ id });
    return { unsent };
  });
  const add = (url: string, now: number, owner: string): WebhookEndpoint => {
    const endpoint = newEndpoint(url, now, owner);
    insert.run(endpoint);
    return endpoint;
  };
  return {
    add: (url: string, now: number, owner = noOwner): WebhookEndpoint => add(validateWebhookUrl(url), now, owner),
    addOrEnable: (url: string, now: number, owner = noOwner) =>
      addOrEnable.immediate(validateWebhookUrl(url), now, owner),
    enable: (id: string, now: number, viewer?: string): Enabled | null => enable.immediate(id, now, viewer ?? null),
    // One statement: the change and the row as it then is.
    rotate: (id: string, which: Rotation, viewer?: string): WebhookEndpoint | null =>
      replace.get({ ...rotationParams(id, which), viewer: viewer ?? null }) ?? null,
    list: (viewer?: string): ListedEndpoint[] => listing.all({ viewer: viewer ?? null }),
    any: (owner?: string): boolean => anyEndpoint.get({ owner: owner ?? null })!.found === 1,
    assign: (id: string, owner: string): WebhookEndpoint | null => assign.immediate(id, owner),
    get: (id: string): WebhookEndpoint | null => byId.get({ id }) ?? null,
    disable(id: string, now: number): void {
      disable.immediate(id, now);
    },
    remove: (id: string, now: number, viewer?: string): { unsent: number } | null =>
      remove.immediate(id, now, viewer ?? null),
  } satisfies Sync<WebhookEndpoints>;
}
