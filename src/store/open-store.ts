/**
 * The store alone, for commands that only read and change rows (`pdfrender webhooks ...`):
 * PostgreSQL when a database URL is given, else SQLite in the data dir.
 */
import { join } from 'node:path';
import { PdfRenderError } from '../errors.js';
import { openDb } from './open-db.js';
import { isStorageFault } from './storage-errors.js';
import { sqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/**
 * A storage fault met while opening the database at `url`, naming where it is (never the
 * password) and what failed, for the one line the command prints; anything else as it was.
 */
export function openingError(url: string, error: unknown): unknown {
  if (!isStorageFault(error)) return error;
  const where = new URL(url);
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return new PdfRenderError(error.code, `PostgreSQL at ${where.host}${where.pathname}: ${error.message}${typeof code === 'string' ? ` (${code})` : ''}`, { cause: error, retryAfter: error.retryAfter });
}

/** The database file of a data dir. */
export const databasePath = (dataDir: string) => join(dataDir, 'pdfrender.db');

/** A store opened for a command, with the clock its times are to be counted by. */
export interface OpenedStore {
  store: Store;
  /** This machine's clock with SQLite; the database server's with PostgreSQL (one measurement), as the servers count. */
  now(): number;
  close(): Promise<void>;
}

/** Open the store at `database` (a PostgreSQL URL), else of `dataDir` (absolute), creating and migrating it as needed. */
export async function openStore(options: { dataDir: string; database?: string | undefined }): Promise<OpenedStore> {
  if (!options.database) {
    const store = sqliteStore(openDb(databasePath(options.dataDir)));
    return { store, now: () => Date.now(), close: () => store.close() };
  }
  // Loaded only when asked for: a SQLite user never pays for the driver.
  const [{ migratePostgres }, { postgresPool, postgresStore }, { databaseClock }] = await Promise.all([
    import('./postgres/migrate.js'),
    import('./postgres/postgres-store.js'),
    import('./postgres/database-clock.js'),
  ]);
  const pool = postgresPool(options.database);
  try {
    await migratePostgres(pool);
    const clock = await databaseClock(pool);
    clock.stop();
    const store = postgresStore(pool);
    return { store, now: () => clock.now(), close: () => store.close() };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw openingError(options.database, error);
  }
}
