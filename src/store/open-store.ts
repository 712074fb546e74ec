/**
 * The one place that chooses the backend: SQLite in the data dir (the default), or PostgreSQL when
 * a database URL is given.
 */
import { join } from 'node:path';
import { openDb } from './open-db.js';
import { sqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** The database file of a data dir. */
export const databasePath = (dataDir: string) => join(dataDir, 'pdfrender.db');

/** Open the store of `dataDir` (absolute), creating and migrating it as needed. */
export async function openStore(options: { dataDir: string }): Promise<Store> {
  return sqliteStore(openDb(databasePath(options.dataDir)));
}
