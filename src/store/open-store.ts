/**
 * The store alone, for commands that only read and change rows (`pdfrender webhooks ...`):
 * PostgreSQL when a database URL is given, else SQLite in the data dir.
 */
import { join } from 'node:path';
import { openDb } from './open-db.js';
import { sqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** The database file of a data dir. */
export const databasePath = (dataDir: string) => join(dataDir, 'pdfrender.db');

/** Open the store at `database` (a PostgreSQL URL), else of `dataDir` (absolute), creating and migrating it as needed. */
export async function openStore(options: { dataDir: string; database?: string | undefined }): Promise<Store> {
  if (!options.database) return sqliteStore(openDb(databasePath(options.dataDir)));
  // Loaded only when asked for: a SQLite user never pays for the driver.
  const { openPostgresStore } = await import('./postgres/postgres-store.js');
  return openPostgresStore(options.database);
}
