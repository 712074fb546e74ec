/**
 * The one place `pdfrender serve` chooses its backend: SQLite in the data dir (the default), or
 * PostgreSQL with --database; rendered files beside it (the data dir's files/ folder, a table of
 * the database) or in S3 with --files. Answers the store (its writes waiting out locks through the
 * store writer), the file store, the storage health that watches all of them, and (on PostgreSQL)
 * the database's clock, which instances on several machines must share for leases and windows.
 */
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import type { EventLog } from '../event-log.js';
import { ensureFolder } from './data-dir.js';
import { diskBlobs } from './files/disk-blobs.js';
import { fileStore } from './files/file-store.js';
import { openDb } from './sqlite/open-db.js';
import { databasePath } from './open-store.js';
import type { S3Blobs } from './files/s3-blobs.js';
import { s3Connection, type FilesLocation } from './files/s3-location.js';
import { firstFault, roundTripCheck, sharedStorageLooks, type StorageCheck } from './health/shared-storage-looks.js';
import { sqliteStore } from './sqlite/sqlite-store.js';
import { dataDirLooks, storageMonitor, type StorageHealth, type StorageLooks } from './health/storage-health.js';
import type { Blobs, FileStore, JobEventBuilder, Store } from './contract.js';
import { retryingStore } from './retrying-store.js';
import { storeWriter } from './store-writer.js';

export interface Backend {
  /** Each write waits out a lock held elsewhere without blocking, up to --busy-timeout (then 503 DATABASE_BUSY), and reports storage faults to `storage`. */
  store: Store;
  /** The same store with writes waiting up to `waitMs` instead. */
  waiting(waitMs: number): Store;
  files: FileStore;
  storage: StorageHealth;
  /** The database's clock (PostgreSQL), for every time the store compares across instances; undefined: this machine's is the only one. */
  clock?: Clock;
  /** Stop watching and close every connection (after the work using them stopped). */
  close(): Promise<void>;
}

/** The serve settings (config.ts) the backend is opened from. */
export interface BackendSettings {
  dataDir: string;
  database?: string | undefined;
  files?: FilesLocation | undefined;
  s3Endpoint?: string | undefined;
  /** --busy-timeout, ms. */
  busyTimeout: number;
  /** --database-timeout, ms: how long a PostgreSQL statement may go unanswered. */
  databaseTimeout?: number | undefined;
  /** --concurrency: PostgreSQL's pool is sized from it. */
  concurrency: number;
}

/** What the backend is opened from; `env` gives the AWS_* variables of --files s3://. */
export interface BackendOptions {
  config: BackendSettings;
  events: EventLog;
  env: NodeJS.ProcessEnv;
  /** Makes a finished job's webhook event (the server's answer shape). */
  eventOf: JobEventBuilder;
}

/** Open the backend `config` names, creating and migrating what it needs. */
export async function openBackend(options: BackendOptions): Promise<Backend> {
  return options.config.database ? openPostgres(options, options.config.database) : openSqlite(options);
}

/** Where the data is, for the start line: never the database password. */
export function describeBackend(config: Pick<BackendSettings, 'dataDir' | 'database' | 'files'>): string {
  const database = config.database ? new URL(config.database) : undefined;
  const where = database ? `data in PostgreSQL ${database.host}${database.pathname}` : `data in ${config.dataDir}`;
  return config.files ? `${where}, files in s3://${config.files.bucket}/${config.files.prefix}` : where;
}

/** S3 blobs for --files, or undefined when the files stay with the database. */
async function s3For({ config, env }: BackendOptions): Promise<S3Blobs | undefined> {
  if (!config.files) return undefined;
  // The S3 client and the PostgreSQL driver are loaded only when asked for.
  const { s3Blobs } = await import('./files/s3-blobs.js');
  return s3Blobs({
    ...config.files,
    ...s3Connection(env),
    ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}),
  });
}

const s3Check = (s3: S3Blobs | undefined): StorageCheck[] => (s3 ? [() => s3.check()] : []);

/** The parts every backend builds the same way once it has its store, blobs and looks. */
function assemble(
  options: BackendOptions,
  store: Store,
  blobs: Blobs,
  looks: StorageLooks,
  extra: { clock?: Clock; close: () => Promise<void> },
): Backend {
  const storage = storageMonitor(looks, options.events);
  const write = storeWriter({
    waitMs: options.config.busyTimeout,
    onFault: (fault, bytes) => storage.report(fault, bytes),
  });
  const retried = retryingStore(store, write);
  return {
    store: retried,
    waiting: (waitMs) => retryingStore(store, write, { waitMs }),
    files: fileStore(retried.fileIndex, blobs, write),
    storage,
    ...(extra.clock ? { clock: extra.clock } : {}),
    async close() {
      storage.stop();
      await extra.close();
    },
  };
}

async function openSqlite(options: BackendOptions): Promise<Backend> {
  const { dataDir } = options.config;
  const dbPath = databasePath(dataDir);
  const filesDir = join(dataDir, 'files');
  const db = openDb(dbPath);
  let looks: StorageLooks;
  try {
    // After the database opened, so a data dir refused for its database is left as it was.
    ensureFolder(filesDir, 'files folder');
    looks = dataDirLooks({ dataDir, dbPath, filesDir });
  } catch (error) {
    db.close();
    throw error;
  }
  // From here on a lock held by another process is waited out without blocking (store-writer.ts).
  db.pragma('busy_timeout = 0');
  const s3 = await s3For(options).catch((error: unknown) => {
    db.close();
    throw error;
  });
  if (s3) {
    const local = looks;
    looks = { ...local, look: async (needBytes) => (await local.look(needBytes)) ?? firstFault(s3Check(s3)) };
  }
  const store = sqliteStore(db, options.eventOf);
  return assemble(options, store, s3 ?? diskBlobs(filesDir), looks, {
    async close() {
      s3?.close();
      await store.close();
    },
  });
}

async function openPostgres(options: BackendOptions, url: string): Promise<Backend> {
  const { openPostgresDatabase } = await import('./postgres/postgres-store.js');
  // Two worker loops per page, the webhook sender and the HTTP routes each hold a connection at times.
  const database = await openPostgresDatabase(url, options.eventOf, {
    max: Math.max(10, 2 * options.config.concurrency + 6),
    ...(options.config.databaseTimeout === undefined ? {} : { queryTimeoutMs: options.config.databaseTimeout }),
  });
  try {
    const s3 = await s3For(options);
    const looks = sharedStorageLooks(s3 ? 'the database and the S3 bucket' : 'the database', [
      roundTripCheck('the database', () => database.store.ping()),
      ...s3Check(s3),
    ]);
    return assemble(options, database.store, s3 ?? database.blobs, looks, {
      clock: database.clock,
      async close() {
        s3?.close();
        await database.close();
      },
    });
  } catch (error) {
    await database.close();
    throw error;
  }
}
