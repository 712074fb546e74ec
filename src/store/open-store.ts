/**
 * The store alone, for commands that only read and change rows (`pdfrender webhooks ...`):
 * PostgreSQL when a database URL is given, else SQLite in the data dir.
 */
import { join } from 'node:path';
import { openDb } from './open-db.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { sqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** The database file of a data dir. */
export const databasePath = (dataDir: string) => join(dataDir, 'pdfrender.db');

/** Open the store at `database` (a PostgreSQL URL), else of `dataDir` (absolute), creating and migrating it as needed. */
export async function openStore(options: { dataDir: string; database?: string | undefined }): Promise<Store> {
  return options.database ? openPostgresStore(options.database) : sqliteStore(openDb(databasePath(options.dataDir)));
}
