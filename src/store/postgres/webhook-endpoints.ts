/**
 * Webhook endpoints in PostgreSQL, with the SQLite table's semantics (sqlite/webhook-endpoints.ts), so
 * `pdfrender webhooks ...` and /api/webhooks on any instance change what every instance sends.
 * Each change of an endpoint and its deliveries is one transaction holding the webhooks advisory
 * lock exclusively: changes take turns (two instances adding back one URL enable it once), and a
 * job settling meanwhile (which takes it shared) writes its deliveries before or after, never
 * between, so none is queued pending for an endpoint just disabled.
 */
import type pg from 'pg';
import { newEndpoint, validateWebhookUrl } from '../webhook-endpoint-rules.js';
import { noOwner } from '../owners.js';
import type { Enabled, ListedEndpoint, Rotation, WebhookEndpoint, WebhookEndpoints } from '../contract.js';
import { postgresDialect } from '../statements/dialect.js';
import { rotationParams, webhookEndpointStatements } from '../statements/webhook-endpoints.js';
import { named } from './named.js';
import { changes, locks, query, row, rows, transaction, type Sql } from './sql.js';

const statements = webhookEndpointStatements(postgresDialect);

async function add(tx: Sql, url: string, now: number, owner: string): Promise<WebhookEndpoint> {
  const endpoint = newEndpoint(url, now, owner);
  await query(tx, ...named(statements.insert, { ...endpoint }));
  return endpoint;
}

async function enable(tx: Sql, id: string, now: number, viewer: string | null): Promise<Enabled | null> {
  const found = await row<WebhookEndpoint>(tx, ...named(statements.seen, { id, viewer }));
  if (!found) return null;
  await query(tx, ...named(statements.setDisabled, { id, disabledAt: null }));
  // Also releases any held while it was active (an attempt that settled after it was enabled).
  const released = await changes(tx, ...named(statements.releaseDeliveries, { id, now }));
  return { endpoint: { ...found, disabledAt: null }, wasDisabled: found.disabledAt !== null, released };
}

/** Run `work` as one change of endpoints: a transaction holding the webhooks lock exclusively. */
function change<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return transaction(pool, work, locks.webhookChange);
}

/** The webhook endpoint table in the database of `pool`. */
export function postgresWebhookEndpoints(pool: pg.Pool): WebhookEndpoints {
  return {
    add: async (url: string, now: number, owner = noOwner) => {
      const valid = validateWebhookUrl(url);
      return change(pool, (tx) => add(tx, valid, now, owner));
    },
    addOrEnable: async (url: string, now: number, owner = noOwner) => {
      const valid = validateWebhookUrl(url);
      return change(
        pool,
        async (tx): Promise<({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled)> => {
          const disabled = await row<{ id: string }>(tx, ...named(statements.disabledWithUrl, { url: valid, owner }));
          if (disabled) return { created: false, ...(await enable(tx, disabled.id, now, null))! };
          return { created: true, ...(await add(tx, valid, now, owner)) };
        },
      );
    },
    enable: (id: string, now: number, viewer?: string) => change(pool, (tx) => enable(tx, id, now, viewer ?? null)),
    rotate: (id: string, which: Rotation, viewer?: string) =>
      change(
        pool,
        async (tx) =>
          (await row<WebhookEndpoint>(
            tx,
            ...named(statements.rotate, { ...rotationParams(id, which), viewer: viewer ?? null }),
          )) ?? null,
      ),
    list: (viewer?: string) => rows<ListedEndpoint>(pool, ...named(statements.list, { viewer: viewer ?? null })),
    any: async (owner?: string) =>
      (await row<{ found: number }>(pool, ...named(statements.any, { owner: owner ?? null })))!.found === 1,
    assign: (id: string, owner: string) =>
      change(pool, async (tx) => {
        const endpoint = await row<WebhookEndpoint>(tx, ...named(statements.assign, { id, owner }));
        if (endpoint) await query(tx, ...named(statements.dropOthersDeliveries, { id, owner }));
        return endpoint ?? null;
      }),
    get: async (id: string) => (await row<WebhookEndpoint>(pool, ...named(statements.get, { id }))) ?? null,
    disable: (id: string, now: number) =>
      change(pool, async (tx) => {
        if ((await changes(tx, ...named(statements.setDisabled, { id, disabledAt: now }))) > 0)
          await query(tx, ...named(statements.holdDeliveries, { id, now }));
      }),
    remove: (id: string, now: number, viewer?: string) =>
      change(pool, async (tx) => {
        if (!(await row(tx, ...named(statements.seen, { id, viewer: viewer ?? null })))) return null;
        const unsent = await changes(tx, ...named(statements.dropDeliveries, { id, now }));
        await query(tx, ...named(statements.delete, { id }));
        return { unsent };
      }),
  };
}
