/**
 * The Store on PostgreSQL, shared by several `pdfrender serve` instances: the same parts and
 * semantics as the SQLite store, each in its own file here. The pool is made by postgresPool (lock
 * waits bounded, so the store writer's retries take over) and the schema migrated before use.
 */
import pg from 'pg';
import type { Clock } from '../../clock.js';
import { PdfRenderError } from '../../errors.js';
import { isPostgresError } from '../postgres-errors.js';
import { isStorageFault } from '../storage-errors.js';
import type { Blobs, JobEventBuilder, Store } from '../contract.js';
import { postgresBlobs } from './blobs.js';
import { databaseClock, type DatabaseClock } from './database-clock.js';
import { postgresDeliveries } from './deliveries.js';
import { postgresFileIndex } from './file-index.js';
import { postgresJobQueue } from './jobs.js';
import { migratePostgres } from './migrate.js';
import { postgresRateWindows } from './rate-windows.js';
import { postgresRedeliveries } from './redeliver.js';
import { learnSession, query } from './sql.js';
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
  /**
   * How long one query may go unanswered, ms (default 30000): a database cut off without a reset
   * (a partition) would otherwise hold every call until the kernel gives up, minutes later.
   */
  queryTimeoutMs?: number;
}

/** A pool for `url` (postgres://user:pass@host:5432/db), its lock waits bounded; errors of idle connections never crash the process. */
export function postgresPool(url: string, options: PostgresPoolOptions = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectTimeoutMs ?? 10_000,
    query_timeout: options.queryTimeoutMs ?? 30_000,
    // A dead peer is found by the socket too, not only by a query that times out.
    keepAlive: true,
    application_name: 'pdfrender',
    options: `-c lock_timeout=${Math.round(options.lockTimeoutMs ?? 1000)}`,
    // The session behind each connection, for an enqueue whose answer is lost (lost-answer.ts).
    onConnect: learnSession,
  });
  // An idle connection the server closed (a restart): the next query opens another, or fails and says so.
  pool.on('error', () => undefined);
  return pool;
}

/** How long a ping waits for its answer: the readiness probe answers within 5 s, and one every few seconds must not pile up. */
const pingTimeoutMs = 5_000;

/**
 * The Store in the database of `pool` (migrated already: see migratePostgres); `close` ends the
 * pool. `eventOf` makes a finished job's webhook event; `clock` is the database's (databaseClock), for the
 * enqueue's deadline.
 */
export function postgresStore(pool: pg.Pool, eventOf: JobEventBuilder, clock?: Clock): Store {
  if (pool.listenerCount('error') === 0) pool.on('error', () => undefined);
  return {
    queue: postgresJobQueue(pool, eventOf, clock),
    deliveries: postgresDeliveries(pool),
    webhooks: postgresWebhookEndpoints(pool),
    redeliveries: postgresRedeliveries(pool, eventOf),
    rateWindows: postgresRateWindows(pool),
    fileIndex: postgresFileIndex(pool),
    // Fails when the server cannot take writes (a standby, a read-only database), without writing:
    // every instance pings every second, and one row written by all of them would be a lock to wait on.
    async ping() {
      // Its own short timeout: a probe of a silent database must not hold a connection for --database-timeout.
      const state = (
        await query<{ writable: boolean }>(
          pool,
          "SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off' AS writable",
          [],
          Math.min(pingTimeoutMs, pool.options.query_timeout ?? pingTimeoutMs),
        )
      ).rows[0];
      if (!state?.writable)
        throw new PdfRenderError(
          'STORAGE_UNAVAILABLE',
          "the server's database is read-only (a standby, or transaction_read_only is on); it cannot take writes",
        );
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}

/**
 * A storage fault met while opening the database at `url`, naming where it is (never the
 * password) and what failed, for the one line the command prints; anything else as it was.
 */
function openingError(url: string, error: unknown): unknown {
  const where = new URL(url);
  const refused = credentialsRefusal(error);
  if (refused) {
    return new PdfRenderError(
      'STORAGE_UNAVAILABLE',
      `PostgreSQL at ${where.host}${where.pathname} refused user ${decodeURIComponent(where.username) || '(none given)'}: ${refused}; give the password in the --database URL or PGPASSWORD`,
      { cause: error },
    );
  }
  if (!isStorageFault(error)) return error;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return new PdfRenderError(
    error.code,
    `PostgreSQL at ${where.host}${where.pathname}: ${error.message}${typeof code === 'string' ? ` (${code})` : ''}`,
    {
      cause: error,
      retryAfter: error.retryAfter,
    },
  );
}

/** Why the server refused our credentials, when that is what `error` says: a class 28 SQLSTATE, or the driver finding no password to answer a password request with. */
function credentialsRefusal(error: unknown): string | undefined {
  const sent = [error, (error as { cause?: unknown } | null)?.cause].find(isPostgresError);
  if (sent?.code.startsWith('28')) return `${sent.message} (${sent.code})`;
  // node-postgres's words when the server asks for a password (SCRAM or MD5) and it has none.
  if (error instanceof Error && /password must be a string/.test(error.message))
    return 'it asks for a password and none was given';
  return undefined;
}

/** A migrated database, its store and its clock (kept measured until `close`). */
export interface OpenedDatabase {
  store: Store;
  clock: DatabaseClock;
  /** The blobs table, for files kept in the database. */
  blobs: Blobs;
  close(): Promise<void>;
}

/**
 * Open the database at `url`: a pool, the schema migrated (once, however many instances start at
 * once), the database's clock measured, the Store. A storage fault on the way says where it met it.
 */
export async function openPostgresDatabase(
  url: string,
  eventOf: JobEventBuilder,
  options: PostgresPoolOptions = {},
): Promise<OpenedDatabase> {
  const pool = postgresPool(url, options);
  let clock: DatabaseClock | undefined;
  try {
    await migratePostgres(pool);
    clock = await databaseClock(pool);
  } catch (error) {
    clock?.stop();
    await pool.end().catch(() => undefined);
    throw openingError(url, error);
  }
  const store = postgresStore(pool, eventOf, clock);
  const started = clock;
  return {
    store,
    clock: started,
    blobs: postgresBlobs(pool),
    async close() {
      started.stop();
      await store.close();
    },
  };
}
