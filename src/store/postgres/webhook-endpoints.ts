/**
 * Webhook endpoints in PostgreSQL, with the SQLite table's semantics (sqlite/webhook-endpoints.ts), so
 * `pdfrender webhooks ...` and /api/webhooks on any instance change what every instance sends.
 * Each change of an endpoint and its deliveries is one transaction holding the webhooks advisory
 * lock exclusively: changes take turns (two instances adding back one URL enable it once), and a
 * job settling meanwhile (which takes it shared) writes its deliveries before or after, never
 * between, so none is queued pending for an endpoint just disabled.
 */
import type pg from 'pg';
import { newWebhookSecret } from '../../webhook-secret.js';
import { newEndpoint, newWebhookKey, validateWebhookUrl } from '../webhook-endpoint-rules.js';
import type { Enabled, Rotation, WebhookEndpoint, WebhookEndpoints } from '../contract.js';
import { changes, locks, query, row, rows, transaction, type Sql } from './sql.js';

const columns = 'id, url, key, secret, created_at AS "createdAt", disabled_at AS "disabledAt"';
// Attempts in flight (claimed_until ahead) are left to settle: their outcome decides.
const settled = '(claimed_until IS NULL OR claimed_until <= $2)';

async function add(tx: Sql, url: string, now: number): Promise<WebhookEndpoint> {
  const endpoint = newEndpoint(url, now);
  await query(tx, 'INSERT INTO webhook_endpoints (id, url, key, secret, created_at) VALUES ($1, $2, $3, $4, $5)', [
    endpoint.id,
    url,
    endpoint.key,
    endpoint.secret,
    now,
  ]);
  return endpoint;
}

async function enable(tx: Sql, id: string, now: number): Promise<Enabled | null> {
  const found = await row<WebhookEndpoint>(tx, `SELECT ${columns} FROM webhook_endpoints WHERE id = $1`, [id]);
  if (!found) return null;
  await query(tx, 'UPDATE webhook_endpoints SET disabled_at = NULL WHERE id = $1', [id]);
  // Also releases any held while it was active (an attempt that settled after it was enabled).
  const released = await changes(
    tx,
    "UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = $2, last_error = NULL, claimed_until = NULL WHERE endpoint_id = $1 AND status = 'held'",
    [id, now],
  );
  return { endpoint: { ...found, disabledAt: null }, wasDisabled: found.disabledAt !== null, released };
}

/** Run `work` as one change of endpoints: a transaction holding the webhooks lock exclusively. */
function change<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  return transaction(pool, work, locks.webhookChange);
}

/** The webhook endpoint table in the database of `pool`. */
export function postgresWebhookEndpoints(pool: pg.Pool): WebhookEndpoints {
  return {
    add: async (url: string, now: number) => {
      const valid = validateWebhookUrl(url);
      return change(pool, (tx) => add(tx, valid, now));
    },
    addOrEnable: async (url: string, now: number) => {
      const valid = validateWebhookUrl(url);
      return change(
        pool,
        async (tx): Promise<({ created: true } & WebhookEndpoint) | ({ created: false } & Enabled)> => {
          const disabled = await row<{ id: string }>(
            tx,
            'SELECT id FROM webhook_endpoints WHERE url = $1 AND disabled_at IS NOT NULL ORDER BY created_at, seq LIMIT 1',
            [valid],
          );
          if (disabled) return { created: false, ...(await enable(tx, disabled.id, now))! };
          return { created: true, ...(await add(tx, valid, now)) };
        },
      );
    },
    enable: (id: string, now: number) => change(pool, (tx) => enable(tx, id, now)),
    rotate: (id: string, which: Rotation) =>
      change(pool, async (tx) => {
        const rotated = await row<WebhookEndpoint>(
          tx,
          `UPDATE webhook_endpoints SET key = coalesce($2, key), secret = coalesce($3, secret) WHERE id = $1 RETURNING ${columns}`,
          [id, which.key ? newWebhookKey() : null, which.secret ? newWebhookSecret() : null],
        );
        return rotated ?? null;
      }),
    list: () =>
      rows<WebhookEndpoint & { held: number }>(
        pool,
        `SELECT ${columns}, (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'held') AS held
         FROM webhook_endpoints e ORDER BY e.created_at, e.seq`,
      ),
    any: async () =>
      (await row<{ found: boolean }>(pool, 'SELECT EXISTS (SELECT 1 FROM webhook_endpoints) AS found'))!.found,
    get: async (id: string) =>
      (await row<WebhookEndpoint>(pool, `SELECT ${columns} FROM webhook_endpoints WHERE id = $1`, [id])) ?? null,
    disable: (id: string, now: number) =>
      change(pool, async (tx) => {
        if ((await changes(tx, 'UPDATE webhook_endpoints SET disabled_at = $2 WHERE id = $1', [id, now])) > 0) {
          await query(
            tx,
            `UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = $1 AND status = 'pending' AND ${settled}`,
            [id, now],
          );
        }
      }),
    remove: (id: string, now: number) =>
      change(pool, async (tx) => {
        if (!(await row(tx, 'SELECT 1 FROM webhook_endpoints WHERE id = $1', [id]))) return null;
        const unsent = await changes(
          tx,
          `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was removed' WHERE endpoint_id = $1 AND status IN ('pending', 'held') AND ${settled}`,
          [id, now],
        );
        await query(tx, 'DELETE FROM webhook_endpoints WHERE id = $1', [id]);
        return { unsent };
      }),
  };
}
