/**
 * The server's SQLite database: WAL (readers never wait for the writer), a busy timeout (a second
 * process on the same data dir waits instead of failing; the server then turns it off and waits
 * without blocking, see store-writer.ts), and migrations keyed on user_version. A data dir or
 * database that cannot be used is one error naming the path and what is wrong.
 */
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { PdfRenderError } from '../../errors.js';
import { ensureFolder, requireWritableFileIfPresent } from '../data-dir.js';

export type Db = Database.Database;

// The columns of the jobs table that its rebuild (migration 8) kept as they were: written once,
// each migration's SQL the same as it shipped.
const jobsKeptColumns = `base_url TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('queued', 'rendering', 'succeeded', 'failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     max_attempts INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     available_at INTEGER NOT NULL,
     claimed_by TEXT,
     claimed_at INTEGER,
     lease_until INTEGER,
     finished_at INTEGER,
     file_id TEXT,
     pages INTEGER,
     bytes INTEGER,
     error TEXT`;

// Each entry moves the schema one version up; never edit one that has shipped, add another.
// Exported so tests can build a data dir as an older pdfrender left it.
export const migrations: string[] = [
  `CREATE TABLE rate_windows (
     key TEXT NOT NULL,
     window_start INTEGER NOT NULL,
     count INTEGER NOT NULL,
     PRIMARY KEY (key, window_start)
   );
   CREATE TABLE files (
     id TEXT PRIMARY KEY,
     path TEXT NOT NULL,
     pages INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   CREATE INDEX files_expiry ON files (expires_at);`,
  `CREATE TABLE webhook_endpoints (
     id TEXT PRIMARY KEY,
     url TEXT NOT NULL,
     secret TEXT NOT NULL,
     created_at INTEGER NOT NULL,
     disabled_at INTEGER
   );`,
  `CREATE TABLE jobs (
     id TEXT PRIMARY KEY,
     caller TEXT NOT NULL,
     identifier TEXT NOT NULL,
     priority INTEGER NOT NULL,
     request TEXT NOT NULL,
     ${jobsKeptColumns}
   );
   CREATE INDEX jobs_ready ON jobs (status, priority DESC, available_at, created_at);
   CREATE INDEX jobs_leases ON jobs (status, lease_until);
   CREATE TABLE identifiers (
     caller TEXT NOT NULL,
     identifier TEXT NOT NULL,
     seen_at INTEGER NOT NULL,
     PRIMARY KEY (caller, identifier)
   );
   CREATE TABLE webhook_deliveries (
     id INTEGER PRIMARY KEY,
     event_id TEXT NOT NULL,
     job_id TEXT NOT NULL,
     endpoint_id TEXT NOT NULL,
     body TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last_status INTEGER,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     delivered_at INTEGER
   );
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);`,
  // Until when an attempt is in flight (set by the claim, cleared by its outcome), so a redelivery
  // can tell a delivery being sent from one waiting for its next attempt.
  `ALTER TABLE webhook_deliveries ADD COLUMN claimed_until INTEGER;`,
  // The URLs a job's document could not load ({blocked, failed} as JSON), for its status.
  `ALTER TABLE jobs ADD COLUMN network TEXT;`,
  // The code of a job's error (its message is the safe one a caller may see; the cause is logged).
  `ALTER TABLE jobs ADD COLUMN error_code TEXT;`,
  // A finished job drops its request (NULL once succeeded or failed; the status never needs it),
  // kept last in the row so reading the other columns never walks its overflow pages; its size is
  // kept beside it, and the index covers the per-caller and total sums the enqueue bound reads.
  // Rebuilt because SQLite cannot drop a NOT NULL; jobs already finished lose their request here.
  `CREATE TABLE jobs_v6 (
     id TEXT PRIMARY KEY,
     caller TEXT NOT NULL,
     identifier TEXT NOT NULL,
     priority INTEGER NOT NULL,
     ${jobsKeptColumns},
     error_code TEXT,
     network TEXT,
     request_bytes INTEGER NOT NULL,
     request TEXT CHECK (request IS NOT NULL OR status IN ('succeeded', 'failed'))
   );
   INSERT INTO jobs_v6 (id, caller, identifier, priority, base_url, status, attempts, max_attempts, created_at, available_at, claimed_by,
                        claimed_at, lease_until, finished_at, file_id, pages, bytes, error, error_code, network, request_bytes, request)
     SELECT id, caller, identifier, priority, base_url, status, attempts, max_attempts, created_at, available_at, claimed_by,
            claimed_at, lease_until, finished_at, file_id, pages, bytes, error, error_code, network, length(CAST(request AS BLOB)),
            CASE WHEN status IN ('queued', 'rendering') THEN request END
     FROM jobs;
   DROP TABLE jobs;
   ALTER TABLE jobs_v6 RENAME TO jobs;
   CREATE INDEX jobs_ready ON jobs (status, priority DESC, available_at, created_at);
   CREATE INDEX jobs_leases ON jobs (status, lease_until);
   CREATE INDEX jobs_held ON jobs (status, caller, request_bytes);`,
  // Each endpoint's key, sent as its deliveries' Bearer token, apart from the secret that signs
  // them: one seen request (a proxy's log) no longer lets anyone sign events. Existing endpoints
  // keep their secret (their receivers' signature checks go on working) and get a fresh key each,
  // in the format newWebhookKey makes.
  `ALTER TABLE webhook_endpoints ADD COLUMN key TEXT NOT NULL DEFAULT '';
   UPDATE webhook_endpoints SET key = 'whk_' || lower(hex(randomblob(32)));`,
  // A delivery may be 'held': its endpoint is disabled (its receiver answered 410 Gone), and it is
  // kept, not dropped, until the endpoint is enabled again. Rebuilt because SQLite cannot change a
  // CHECK. What older versions settled as failed only because the endpoint was disabled (the 410
  // itself, and what the sender then abandoned) is held too, so enabling the endpoint sends it.
  // Indexes for what an endpoint holds and for a job's deliveries (redeliver).
  `CREATE TABLE webhook_deliveries_v9 (
     id INTEGER PRIMARY KEY,
     event_id TEXT NOT NULL,
     job_id TEXT NOT NULL,
     endpoint_id TEXT NOT NULL,
     body TEXT NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('pending', 'held', 'delivered', 'failed')),
     attempts INTEGER NOT NULL DEFAULT 0,
     next_attempt_at INTEGER NOT NULL,
     last_status INTEGER,
     last_error TEXT,
     created_at INTEGER NOT NULL,
     delivered_at INTEGER,
     claimed_until INTEGER
   );
   INSERT INTO webhook_deliveries_v9 (id, event_id, job_id, endpoint_id, body, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at, claimed_until)
     SELECT id, event_id, job_id, endpoint_id, body, status, attempts, next_attempt_at, last_status, last_error, created_at, delivered_at, claimed_until
     FROM webhook_deliveries;
   UPDATE webhook_deliveries_v9 SET status = 'held', claimed_until = NULL
     WHERE endpoint_id IN (SELECT id FROM webhook_endpoints WHERE disabled_at IS NOT NULL)
       AND (status = 'pending' OR (status = 'failed' AND (last_status = 410 OR last_error = 'the endpoint was disabled')));
   DROP TABLE webhook_deliveries;
   ALTER TABLE webhook_deliveries_v9 RENAME TO webhook_deliveries;
   CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
   CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, status);
   CREATE INDEX webhook_deliveries_job ON webhook_deliveries (job_id);`,
  // What an identifier queued, so the same request sent again within the window (a retry after a
  // lost answer) is answered with that job rather than 402 (enqueue-rules.ts). Older rows have
  // neither: a send of theirs again is refused as before.
  `ALTER TABLE identifiers ADD COLUMN request_digest TEXT;
   ALTER TABLE identifiers ADD COLUMN job_id TEXT;`,
  // A file's bytes are found by its id since the files moved behind Blobs, so the path column goes
  // (its insert is then the statement PostgreSQL runs, statements/file-index.ts). Rebuilt because
  // SQLite cannot drop a NOT NULL column.
  `CREATE TABLE files_v11 (
     id TEXT PRIMARY KEY,
     pages INTEGER NOT NULL,
     bytes INTEGER NOT NULL,
     created_at INTEGER NOT NULL,
     expires_at INTEGER NOT NULL
   );
   INSERT INTO files_v11 (id, pages, bytes, created_at, expires_at) SELECT id, pages, bytes, created_at, expires_at FROM files;
   DROP TABLE files;
   ALTER TABLE files_v11 RENAME TO files;
   CREATE INDEX files_expiry ON files (expires_at);`,
  // Owners (owners.ts): an endpoint receives only its owner's jobs' events (or every job's, '*'), and
  // with --private-files a file is downloaded only with its owner's key. What exists is no key's ('').
  `ALTER TABLE webhook_endpoints ADD COLUMN owner TEXT NOT NULL DEFAULT '';
   ALTER TABLE files ADD COLUMN owner TEXT NOT NULL DEFAULT '';`,
  // The preflight report (engine/report/render-report.ts, as JSON) of the render that finished a
  // job, for its status and its webhook event: the successful one's, or a failOn rule's failure's.
  `ALTER TABLE jobs ADD COLUMN report TEXT;`,
  // A job's W3C traceparent, so its render and its webhook deliveries join the trace of the request
  // that queued it, on whichever instance they run. After the request in the row, but read only
  // with it (get, claim) or once the job finished and dropped it (a delivery's claim). And failed
  // jobs by when, for the failures an operator lists (and the sweep's drop of finished jobs).
  `ALTER TABLE jobs ADD COLUMN trace_context TEXT;
   CREATE INDEX jobs_finished ON jobs (status, finished_at);`,
];

/** Open (creating if needed) the database at `path` and bring its schema up to date. */
export function openDb(path: string): Db {
  if (path !== ':memory:') {
    ensureFolder(dirname(path), 'data dir');
    requireWritableFileIfPresent(path);
  }
  let db: Db | undefined;
  try {
    db = new Database(path);
    db.pragma('journal_mode = WAL');
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Deleted content (a finished job's request, a rotated secret) is overwritten with zeros rather
    // than left readable in free pages until they are reused.
    db.pragma('secure_delete = ON');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > migrations.length) {
      throw new PdfRenderError(
        'STORAGE_UNAVAILABLE',
        `${path} was written by a newer pdfrender (schema ${version}); upgrade pdfrender to use it`,
      );
    }
    const current = db;
    current
      .transaction(() => {
        for (let next = version; next < migrations.length; next += 1) {
          current.exec(migrations[next]!);
          current.pragma(`user_version = ${next + 1}`);
        }
      })
      .immediate();
    return db;
  } catch (error) {
    db?.close();
    throw openError(path, error);
  }
}

/** What SQLite said on opening `path`, as one line naming the file. */
function openError(path: string, error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  if (error.code === 'SQLITE_NOTADB' || error.code.startsWith('SQLITE_CORRUPT')) {
    return new PdfRenderError(
      'STORAGE_UNAVAILABLE',
      `${path} is not a pdfrender database (${error.message}); move it away or choose another --data-dir`,
      {
        cause: error,
      },
    );
  }
  if (error.code.startsWith('SQLITE_BUSY'))
    return new PdfRenderError('DATABASE_BUSY', `${path} stayed locked by another process; try again`, { cause: error });
  return new PdfRenderError(
    'STORAGE_UNAVAILABLE',
    `cannot open the database ${path}: ${error.message} (${error.code})`,
    { cause: error },
  );
}
