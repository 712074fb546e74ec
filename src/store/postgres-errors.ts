/**
 * Which PostgreSQL and driver errors are storage faults: a lock or serialization conflict is the
 * database being busy (the store writer tries again), a lost or refused connection or a server
 * shutting down is the storage being unavailable, a full disk is full. Anything else (a bug in a
 * statement, a constraint) is not, and stays as it was thrown.
 */

/**
 * True for an error the PostgreSQL server sent: a SQLSTATE code and a severity. Told by its shape,
 * not by node-postgres's class, so that every process (a SQLite server, the CLI) is spared loading
 * the driver (about 90 ms) just to classify its errors.
 */
export function isPostgresError(error: unknown): error is Error & { code: string; severity: string } {
  const fields = error as { code?: unknown; severity?: unknown } | null;
  return (
    error instanceof Error &&
    typeof fields?.code === 'string' &&
    /^[0-9A-Z]{5}$/.test(fields.code) &&
    typeof fields.severity === 'string'
  );
}

/** The storage code of a PostgreSQL or node-postgres error, or undefined when it is not a storage fault. */
export function postgresStorageCode(
  error: unknown,
): 'STORAGE_FULL' | 'STORAGE_UNAVAILABLE' | 'DATABASE_BUSY' | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  if (isPostgresError(error)) return sqlState(error.code);
  if (typeof code === 'string' && networkErrnos.has(code)) return 'STORAGE_UNAVAILABLE';
  // node-postgres reports a lost connection and a full pool without a code.
  if (fullPool.test(error.message)) return 'DATABASE_BUSY';
  return driverMessages.test(error.message) ? 'STORAGE_UNAVAILABLE' : undefined;
}

// The errnos of a server that cannot be reached (node-postgres passes the socket's error on).
const networkErrnos = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
const driverMessages =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|Query read timeout)/;
// pg-pool's answer to a caller that waited too long for a free connection of a full pool: load, not an outage.
const fullPool = /^timeout exceeded when trying to connect/;

// Serialization failure, deadlock, lock not available (lock_timeout), a statement cancelled by
// statement_timeout, and too many connections (the server is there and answering: load, not an outage).
const busy = new Set(['40001', '40P01', '55P03', '57014', '53300']);
// Admin or crash shutdown, starting up, a read-only server (a standby), no such database.
const unavailable = new Set(['57P01', '57P02', '57P03', '25006', '3D000']);

/**
 * A fault's own words where the code's general ones would name the wrong cause: the server out of
 * connection slots or this instance's pool all in use (load, not a conflicting change), and a
 * database that stopped answering (not one that refused). Undefined for the rest.
 */
export function postgresFaultWords(error: unknown): string | undefined {
  if (isPostgresError(error) && error.code === '53300')
    return "the server's database has no connection to spare (too many connections, 53300); try again shortly";
  if (!(error instanceof Error)) return undefined;
  if (fullPool.test(error.message))
    return 'every connection this server has to its database is in use, and none came free in time; try again shortly';
  if (silent.test(error.message))
    return "the server's database did not answer in time (--database-timeout); try again later or another instance";
  return undefined;
}

// node-postgres's words for a query, or a connection's start, that got no answer within its timeout.
const silent = /^(Query read timeout|Connection terminated due to connection timeout)/;

function sqlState(code: string): 'STORAGE_FULL' | 'STORAGE_UNAVAILABLE' | 'DATABASE_BUSY' | undefined {
  if (busy.has(code)) return 'DATABASE_BUSY';
  if (code === '53100') return 'STORAGE_FULL';
  // Class 08: connection exceptions; 28: the server refused our credentials; 58: system errors (I/O).
  if (unavailable.has(code) || /^(08|28|58)/.test(code)) return 'STORAGE_UNAVAILABLE';
  return undefined;
}
