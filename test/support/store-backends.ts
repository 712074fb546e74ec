/**
 * The two Store backends for the contract suite, each opened fresh per test: SQLite in a temp data
 * dir, PostgreSQL in a new database of this file's throw-away cluster. Besides the Store, each
 * gives what a test needs to look under it: raw SQL (`?` placeholders on both), a way to make the
 * insertion of deliveries fail, and its Blobs where it has them.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { diskBlobs } from '../../src/store/files/disk-blobs.js';
import { openDb } from '../../src/store/sqlite/open-db.js';
import { postgresBlobs } from '../../src/store/postgres/blobs.js';
import { migratePostgres } from '../../src/store/postgres/migrate.js';
import { postgresPool, postgresStore } from '../../src/store/postgres/postgres-store.js';
import { sqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Blobs, Store } from '../../src/store/contract.js';
import { tempDir } from './files.js';
import { endPool, startCluster, type Cluster } from './postgres.js';
import { webhookEvent } from '../../src/server/api/job-event.js';

export interface Opened {
  store: Store;
  /** Rows of a raw statement; `?` placeholders. */
  sql<Row = Record<string, unknown>>(text: string, ...params: unknown[]): Promise<Row[]>;
  /** Make every insertion of a webhook delivery fail ("disk full") until the returned undo runs. */
  breakDeliveries(): Promise<() => Promise<void>>;
  blobs: Blobs;
  close(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  open(): Promise<Opened>;
}

const sqlite: Backend = {
  name: 'sqlite',
  async open() {
    const dataDir = await tempDir();
    const db = openDb(join(dataDir, 'pdfrender.db'));
    await mkdir(join(dataDir, 'files'));
    return {
      store: sqliteStore(db, webhookEvent),
      sql: async <Row>(text: string, ...params: unknown[]) => {
        const statement = db.prepare(text);
        return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
      },
      async breakDeliveries() {
        db.exec(
          "CREATE TEMP TRIGGER no_deliveries BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'disk full'); END",
        );
        return async () => void db.exec('DROP TRIGGER no_deliveries');
      },
      blobs: diskBlobs(join(dataDir, 'files')),
      close: async () => void (db.open && db.close()),
    };
  },
};

let cluster: Promise<Cluster> | undefined;
let databases = 0;
const pools: pg.Pool[] = [];

/** This file's cluster, started on first use. */
export const postgresCluster = (): Promise<Cluster> => (cluster ??= startCluster());

/** A new empty database in this file's cluster; returns its URL. */
export async function emptyDatabase(): Promise<string> {
  databases += 1;
  return (await postgresCluster()).createDatabase(`store_${databases}`);
}

/** A pool on `url` as the server makes it (ended by `stopPostgres`). */
export function poolOn(url: string, max?: number): pg.Pool {
  const pool = postgresPool(url, { max });
  pools.push(pool);
  return pool;
}

/** A new migrated database in this file's cluster, and a pool on it. */
export async function freshDatabase(max?: number): Promise<{ url: string; pool: pg.Pool }> {
  const url = await emptyDatabase();
  const pool = poolOn(url, max);
  await migratePostgres(pool);
  return { url, pool };
}

let shared: Promise<string> | undefined;
const tables = 'rate_windows, files, blobs, webhook_endpoints, jobs, identifiers, webhook_deliveries';

const postgres: Backend = {
  name: 'postgres',
  // One database per file, emptied for each test: a CREATE DATABASE takes about half a second here, a TRUNCATE a few ms.
  async open() {
    const url = await (shared ??= freshDatabase().then(({ url }) => url));
    const pool = poolOn(url);
    // Also what a failed test may have left: its broken deliveries.
    await pool.query(
      `DROP TRIGGER IF EXISTS no_deliveries ON webhook_deliveries; DROP FUNCTION IF EXISTS no_deliveries(); TRUNCATE ${tables} RESTART IDENTITY`,
    );
    return {
      store: postgresStore(pool, webhookEvent),
      async sql<Row>(text: string, ...params: unknown[]) {
        let n = 0;
        const { rows } = await pool.query({
          text: text.replace(/\?/g, () => `$${(n += 1)}`),
          values: params,
          types: { getTypeParser: bigintAsNumber },
        });
        return rows as Row[];
      },
      async breakDeliveries() {
        await pool.query(`CREATE FUNCTION no_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
          CREATE TRIGGER no_deliveries BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION no_deliveries()`);
        return async () =>
          void (await pool.query('DROP TRIGGER no_deliveries ON webhook_deliveries; DROP FUNCTION no_deliveries()'));
      },
      blobs: postgresBlobs(pool),
      close: async () => void (pool.ended || (await pool.end())),
    };
  },
};

// Raw rows read like the store's: BIGINT as numbers.
const bigintAsNumber = ((oid: number, format?: 'text' | 'binary') =>
  oid === pg.types.builtins.INT8
    ? Number
    : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'];

/** Both backends, for describe.each. */
export const backends: Backend[] = [sqlite, postgres];

/** Stop this file's cluster (afterAll). */
export async function stopPostgres(): Promise<void> {
  // The cluster first: a pool with a connection a failed test left checked out would wait for it for ever.
  // A cluster that could not start failed its tests already, saying why.
  const started = await cluster?.catch(() => undefined);
  await started?.stop();
  await Promise.all(pools.splice(0).map(endPool));
  cluster = undefined;
  shared = undefined;
}
