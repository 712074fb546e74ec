/**
 * The store alone, for commands that only read and change rows (`pdfrender webhooks ...`):
 * PostgreSQL when a database URL is given, else SQLite in the data dir.
 */
import { join } from 'node:path';
import { openDb } from './sqlite/open-db.js';
import { sqliteStore } from './sqlite/sqlite-store.js';
import type { JobEventBuilder, Store } from './contract.js';

/** The database file of a data dir. */
export const databasePath = (dataDir: string) => join(dataDir, 'pdfrender.db');

/** A store opened for a command, with the clock its times are to be counted by. */
export interface OpenedStore {
  store: Store;
  /** This machine's clock with SQLite; the database server's with PostgreSQL (one measurement), as the servers count. */
  now(): number;
  close(): Promise<void>;
}

/**
 * Open the store at `database` (a PostgreSQL URL), else of `dataDir` (absolute), creating and
 * migrating it as needed; `eventOf` makes a finished job's webhook event (a redelivery writes one).
 */
export async function openStore(options: {
  dataDir: string;
  database?: string | undefined;
  eventOf: JobEventBuilder;
}): Promise<OpenedStore> {
  if (!options.database) {
    const store = sqliteStore(openDb(databasePath(options.dataDir)), options.eventOf);
    return { store, now: () => Date.now(), close: () => store.close() };
  }
  // Loaded only when asked for: a SQLite user never pays for the driver.
  const { openPostgresDatabase } = await import('./postgres/postgres-store.js');
  const opened = await openPostgresDatabase(options.database, options.eventOf);
  // One measurement is enough for a command that lasts a moment.
  opened.clock.stop();
  return { store: opened.store, now: () => opened.clock.now(), close: () => opened.close() };
}
