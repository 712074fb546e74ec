/**
 * The Store on PostgreSQL, shared by several `pdfrender serve` instances: the same parts and
 * semantics as the SQLite store, each in its own file here. The pool is made by postgresPool (lock
 * waits bounded, so the store writer's retries take over) and the schema migrated before use.
 */
import pg from 'pg';
import type { Store } from '../store.js';
import { postgresDeliveries } from './deliveries.js';
import { postgresFileIndex } from './file-index.js';
import { postgresJobQueue } from './jobs.js';
import { migratePostgres } from './migrate.js';
import { postgresRateWindows } from './rate-windows.js';
import { postgresRedeliveries } from './redeliver.js';
import { query } from './sql.js';
import { postgresWebhookEndpoints } from './webhook-endpoints.js';

export interface PostgresPoolOptions {
  /** Connections per instance (default 10). */
  max?: number;
  /**
   * How long one statement waits for a lock, ms (default 1000): past it, PostgreSQL gives up
   * (55P03, DATABASE_BUSY) and the store writer tries again, bounded by --busy-timeout, rather than
   * waiting without a bound.
   */
  lockTimeoutMs?: number;
  /** How long opening a connection may take, ms (default 10000); then STORAGE_UNAVAILABLE. */
  connectTimeoutMs?: number;
}

/** A pool for `url` (postgres://user:pass@host:5432/db), its lock waits bounded; errors of idle connections never crash the process. */
export function postgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    application_name: 'pdfrender',
    options: `-c lock_timeout=${Math.round(options.lockTimeoutMs ?? 1000)}`,
  });
  // An idle connection the server closed (a restart): the next query opens another, or fails and says so.
  pool.on('error', () => undefined);
  return pool;
}

/** The Store in the database of `pool` (migrated already: see openPostgresStore); `close` ends the pool. */
export function postgresStore(pool: pg.Pool): Store {
  if (pool.listenerCount('error') === 0) pool.on('error', () => undefined);
  return {
    queue: postgresJobQueue(pool),
    deliveries: postgresDeliveries(pool),
    webhooks: postgresWebhookEndpoints(pool),
    redeliveries: postgresRedeliveries(pool),
    rateWindows: postgresRateWindows(pool),
    fileIndex: postgresFileIndex(pool),
    // A write, so a server that only reads (a standby, a read-only database, a full disk) fails it.
    async ping() {
      await query(pool, 'UPDATE pdfrender_schema SET checked_at = (extract(epoch from clock_timestamp()) * 1000)::bigint');
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}

/** Open the database at `url`: a pool, the schema migrated (once, however many instances start at once), the Store. */
export async function openPostgresStore(url: string, options: PostgresPoolOptions = {}): Promise<Store> {
  const pool = postgresPool(url, options);
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  return postgresStore(pool);
}
