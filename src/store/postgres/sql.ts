/**
 * The two ways the PostgreSQL store talks to the database: one statement on any pooled connection,
 * or a transaction on one connection. Both read BIGINT columns (the ms timestamps, counts) as
 * numbers, like SQLite gives them, without changing the pool's global parsers (the pool is the
 * caller's), and both turn connection and lock errors into storage faults (storage-errors.ts).
 */
import pg from 'pg';
import { postgresFault } from '../storage-errors.js';

/** A pool, or the one connection of a transaction. */
export type Sql = pg.Pool | pg.PoolClient;

// int8 fits a double for every value the store writes (ms timestamps, counts, ids).
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Run one statement; rows with BIGINTs as numbers. Storage faults throw as PdfRenderErrors. */
export async function query<Row extends pg.QueryResultRow = Record<string, never>>(sql: Sql, text: string, values: unknown[] = []): Promise<pg.QueryResult<Row>> {
  try {
    return await sql.query<Row>({ text, values, types });
  } catch (error) {
    throw postgresFault(error) ?? error;
  }
}

/** The rows of one statement. */
export async function rows<Row extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<Row[]> {
  return (await query<Row>(sql, text, values)).rows;
}

/** The first row of one statement, or undefined. */
export async function row<Row extends pg.QueryResultRow>(sql: Sql, text: string, values: unknown[] = []): Promise<Row | undefined> {
  return (await query<Row>(sql, text, values)).rows[0];
}

/** How many rows one statement changed. */
export async function changes(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  return (await query(sql, text, values)).rowCount ?? 0;
}

/** One connection of the pool, for the caller to release; a refused connection throws as a storage fault. */
export async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw postgresFault(error) ?? error;
  }
}

/**
 * Run `work` in one READ COMMITTED transaction on one connection: committed when it resolves,
 * rolled back when it throws. Each statement sees what others committed before it began, so the
 * read-then-write steps take their locks (rows FOR UPDATE, or an advisory lock) first.
 */
export async function transaction<T>(pool: pg.Pool, work: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await connect(pool);
  let broken = false;
  try {
    await query(client, 'BEGIN');
    const result = await work(client);
    await query(client, 'COMMIT');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is dropped, not handed to the next caller.
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Advisory lock keys (one number space per database; these are pdfrender's). Transaction-level:
 * released at commit or rollback, so a crashed instance never keeps one.
 */
export const locks = {
  /** Taken by migrations (session-level, around the whole run). */
  migrate: 0x70646672_01,
  /** Serializes enqueues: the dedupe check and the queue bounds read what the last enqueue wrote. */
  enqueue: 0x70646672_02,
  /** Endpoint changes take it exclusively; writers of deliveries take it shared, so no new delivery misses a change of its endpoint. */
  webhooks: 0x70646672_03,
  /** Serializes delivery claims, so each claim's per-endpoint counts are what the last one left. */
  deliveryClaim: 0x70646672_04,
} as const;

/** Take a transaction-level advisory lock, waiting for it (bounded by the connection's lock_timeout). */
export async function lock(tx: pg.PoolClient, key: number, shared = false): Promise<void> {
  await query(tx, shared ? 'SELECT pg_advisory_xact_lock_shared($1)' : 'SELECT pg_advisory_xact_lock($1)', [key]);
}
