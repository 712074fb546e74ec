/** The statements of webhook endpoints (contract.ts WebhookEndpoints), one per operation for both stores. */
import { newWebhookSecret } from '../../webhook-secret.js';
import type { Rotation } from '../contract.js';
import { newWebhookKey } from '../webhook-endpoint-rules.js';
import { ownerOfCallerSql } from '../owners.js';
import type { Dialect } from './dialect.js';

/** The columns of a WebhookEndpoint, named as its fields. */
const columns = 'id, url, key, secret, created_at AS "createdAt", disabled_at AS "disabledAt", owner';
// Another owner's endpoint is not there for a viewer; without one (the operator, or auth off) every endpoint is.
const seen = '(CAST(:viewer AS TEXT) IS NULL OR owner = :viewer)';
// Attempts in flight (claimed_until ahead) are left to settle: their outcome decides, and the
// sender holds whatever comes back due for a disabled endpoint.
const settled = '(claimed_until IS NULL OR claimed_until <= :now)';

export const webhookEndpointStatements = (d: Dialect) => ({
  insert: `INSERT INTO webhook_endpoints (id, url, key, secret, created_at, owner)
     VALUES (:id, :url, :key, :secret, :createdAt, :owner)`,
  rotate: `UPDATE webhook_endpoints SET key = coalesce(:key, key), secret = coalesce(:secret, secret)
     WHERE id = :id AND ${seen} RETURNING ${columns}`,
  list: `SELECT ${columns}, (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'held') AS held
     FROM webhook_endpoints e WHERE ${seen} ORDER BY e.created_at, e.${d.writeOrder}`,
  get: `SELECT ${columns} FROM webhook_endpoints WHERE id = :id`,
  seen: `SELECT ${columns} FROM webhook_endpoints WHERE id = :id AND ${seen}`,
  // 0 or 1 in both (PostgreSQL's EXISTS is a boolean, SQLite's an integer). Without an owner, any endpoint.
  any: `SELECT count(*) AS found FROM (SELECT 1 FROM webhook_endpoints
     WHERE CAST(:owner AS TEXT) IS NULL OR owner IN (:owner, '*') LIMIT 1) one`,
  // An endpoint comes back only to its own owner: another's with the same URL stays theirs.
  disabledWithUrl: `SELECT id FROM webhook_endpoints WHERE url = :url AND owner = :owner AND disabled_at IS NOT NULL
     ORDER BY created_at, ${d.writeOrder} LIMIT 1`,
  assign: `UPDATE webhook_endpoints SET owner = :owner WHERE id = :id RETURNING ${columns}`,
  // What an endpoint was to send of its former owner's jobs is not its new owner's to receive (a job
  // swept since has no owner to tell: dropped too).
  dropOthersDeliveries: `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was given to another owner'
     WHERE endpoint_id = :id AND status IN ('pending', 'held')
       AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = job_id AND (:owner = '*' OR ${ownerOfCallerSql('j.caller')} = :owner))`,
  setDisabled: 'UPDATE webhook_endpoints SET disabled_at = :disabledAt WHERE id = :id',
  delete: 'DELETE FROM webhook_endpoints WHERE id = :id',
  holdDeliveries: `UPDATE webhook_deliveries SET status = 'held' WHERE endpoint_id = :id AND status = 'pending' AND ${settled}`,
  // Released in the order the events happened: all due now, and the sender takes them by id.
  releaseDeliveries: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = :now, last_error = NULL, claimed_until = NULL
     WHERE endpoint_id = :id AND status = 'held'`,
  dropDeliveries: `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the endpoint was removed'
     WHERE endpoint_id = :id AND status IN ('pending', 'held') AND ${settled}`,
});

/** The parameters of `rotate`: a new key, a new secret, or both; null keeps the one there. */
export const rotationParams = (id: string, which: Rotation) => ({
  id,
  key: which.key ? newWebhookKey() : null,
  secret: which.secret ? newWebhookSecret() : null,
});
