/**
 * The two ways the PostgreSQL store talks to the database: one statement on any pooled connection,
 * or a transaction on one connection. Both read BIGINT columns (the ms timestamps, counts) as
 * numbers, like SQLite gives them, without changing the pool's global parsers (the pool is the
 * caller's), and both turn connection and lock errors into storage faults (storage-errors.ts).
 */
import pg from 'pg';
import { isPdfRenderError } from '../../errors.js';
import { postgresFault } from '../storage-errors.js';

/** The server session behind a connection: its process and when it began (a process id alone can be reused). */
export interface Session {
  pid: number;
  /** backend_start, as the server writes it. */
  startedAt: string;
}

const sessions = new WeakMap<pg.ClientBase, Session>();

/**
 * Learn the session behind a new connection (the pool's onConnect, see postgresPool). Asked of the
 * server, not taken from the driver's BackendKeyData: a session-pooling proxy (PgBouncer) sends a
 * key of its own there, not the server's process id.
 */
export async function learnSession(client: pg.ClientBase): Promise<void> {
  // Not knowing it only makes a lost answer wait for its deadline: never a reason to refuse the connection.
  const { rows } = await client
    .query<Session>(
      'SELECT pg_backend_pid() AS pid, backend_start::text AS "startedAt" FROM pg_stat_activity WHERE pid = pg_backend_pid()',
    )
    .catch(() => ({ rows: [] as Session[] }));
  if (rows[0]) sessions.set(client, rows[0]);
}

/** The session behind `client`, when its pool learnt it. */
export const sessionOf = (client: pg.ClientBase): Session | undefined => sessions.get(client);

/** A pool, or the one connection of a transaction. */
export type Sql = pg.Pool | pg.PoolClient;

// int8 fits a double for every value the store writes (ms timestamps, counts, ids).
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === pg.types.builtins.INT8
      ? Number
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** Run one statement (within `timeoutMs` when given, else the pool's query timeout); rows with BIGINTs as numbers. Storage faults throw as PdfRenderErrors. */
export async function query<Row extends pg.QueryResultRow = Record<string, never>>(
  sql: Sql,
  text: string,
  values: unknown[] = [],
  timeoutMs?: number,
): Promise<pg.QueryResult<Row>> {
  try {
    return await sql.query<Row>({
      text,
      values,
      types,
      ...(timeoutMs === undefined ? {} : { query_timeout: timeoutMs }),
    });
  } catch (error) {
    throw postgresFault(error) ?? error;
  }
}

/** The rows of one statement. */
export async function rows<Row extends pg.QueryResultRow>(
  sql: Sql,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  return (await query<Row>(sql, text, values)).rows;
}

/** The first row of one statement, or undefined. */
export async function row<Row extends pg.QueryResultRow>(
  sql: Sql,
  text: string,
  values: unknown[] = [],
): Promise<Row | undefined> {
  return (await query<Row>(sql, text, values)).rows[0];
}

/** How many rows one statement changed. */
export async function changes(sql: Sql, text: string, values: unknown[] = []): Promise<number> {
  return (await query(sql, text, values)).rowCount ?? 0;
}

/**
 * One connection of the pool, for the caller to give back with `release(broken)`; a refused
 * connection throws as a storage fault. While it is checked out, an error of the connection (the
 * server terminating its session, a reset between two statements) is caught here: node-postgres
 * takes the pool's listener off a checked-out client, and an 'error' event with no listener ends
 * the process. The next statement on it fails as a storage fault, and release drops it.
 */
export async function connect(pool: pg.Pool): Promise<CheckedOut> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw postgresFault(error) ?? error;
  }
  let lost = false;
  const onError = () => (lost = true);
  client.on('error', onError);
  return {
    client,
    release(broken = false) {
      client.off('error', onError);
      client.release(broken || lost);
    },
  };
}

/** A connection checked out of the pool, and how to give it back. */
export interface CheckedOut {
  client: pg.PoolClient;
  /** Back to the pool, or closed when `broken` (or when the connection failed while out). */
  release(broken?: boolean): void;
}

/** A transaction-level advisory lock: released at commit or rollback, so a crashed instance never keeps one. */
export interface AdvisoryLock {
  key: number;
  /** Taken with others holding it shared; an exclusive holder waits for them all, and they for it. */
  shared?: boolean;
}

/**
 * Run `work` in one READ COMMITTED transaction on one connection, holding `lock` from the start:
 * committed when it resolves, rolled back when it throws. Each statement sees what others
 * committed before it began, so the read-then-write steps are serialized by the lock, or lock
 * their rows (FOR UPDATE) themselves.
 */
export async function transaction<T>(
  pool: pg.Pool,
  work: (tx: pg.PoolClient) => Promise<T>,
  lock?: AdvisoryLock,
): Promise<T> {
  const { client, release } = await connect(pool);
  let broken = false;
  try {
    // BEGIN and the lock in one round trip (the simple protocol runs both; the key is one of ours, never input).
    await query(
      client,
      lock
        ? `BEGIN; SELECT ${lock.shared ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}(${lock.key})`
        : 'BEGIN',
    );
    const result = await work(client);
    await query(client, 'COMMIT');
    return result;
  } catch (error) {
    // A connection that broke or went silent is dropped without a ROLLBACK (the server rolls back a
    // session that ends; a ROLLBACK would queue behind the statement that timed out, for another
    // whole timeout), and so is one that cannot even roll back.
    if (isPdfRenderError(error, 'STORAGE_UNAVAILABLE')) broken = true;
    else
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    throw error;
  } finally {
    release(broken);
  }
}

/**
 * Serializes enqueues, taken inside the pdfrender_enqueue function (schema.ts): the dedupe check and
 * the queue bounds read what the last enqueue wrote.
 */
export const enqueueLockKey = 0x70646672_02;
/** Serializes delivery claims, taken inside the pdfrender_claim_deliveries function (schema.ts): each sees the attempts in flight the last one left. */
export const deliveryClaimLockKey = 0x70646672_04;
const keys = { migrate: 0x70646672_01, webhooks: 0x70646672_03 };

/** pdfrender's advisory locks (one number space per database; these keys are ours). Waits are bounded by the connection's lock_timeout. */
export const locks = {
  /** Taken by migrations, session-level, around the whole run. */
  migrate: { key: keys.migrate },
  /** A change of endpoints: waits for the writers of deliveries, and they for it, so no new delivery misses a change of its endpoint. */
  webhookChange: { key: keys.webhooks },
  /** Writing deliveries (a job settling, a redelivery's reads aside): many at once, none during an endpoint change. */
  webhookWrite: { key: keys.webhooks, shared: true },
} satisfies Record<string, AdvisoryLock>;
