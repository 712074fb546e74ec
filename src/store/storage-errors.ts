/**
 * Which raw errors of the database and the file system are storage faults rather than bugs: a full
 * disk, a data dir made read-only or taken away, a database locked by another process. Each becomes
 * a PdfRenderError with a storage code, so callers get a documented status (507 or 503 with
 * Retry-After) instead of a 500, and the worker knows not to blame the document.
 */
import Database from 'better-sqlite3';
import { isPdfRenderError, PdfRenderError, type ErrorCode } from '../errors.js';
import { isPostgresError, postgresFaultWords, postgresStorageCode } from './postgres-errors.js';

/** The codes of a fault in the storage, never in the document or the request. */
export type StorageCode = Extract<ErrorCode, 'STORAGE_FULL' | 'STORAGE_UNAVAILABLE' | 'DATABASE_BUSY'>;

/** Seconds a refused caller is told to wait: a full or missing disk needs an operator, a lock only a moment. */
const retryAfter: Record<StorageCode, number> = { STORAGE_FULL: 30, STORAGE_UNAVAILABLE: 30, DATABASE_BUSY: 5 };

// Safe for any caller: no paths (the operator's log has them).
const messages: Record<StorageCode, string> = {
  STORAGE_FULL: "the server's storage is full, so nothing more can be stored there; try again later",
  STORAGE_UNAVAILABLE:
    "the server's storage is unavailable (its data folder was removed, replaced or made read-only); try again later or another instance",
  DATABASE_BUSY: "the server's database is locked by another process; try again shortly",
};

// The same faults on a PostgreSQL server (several instances share it, so another may still answer).
const postgresMessages: Record<StorageCode, string> = {
  STORAGE_FULL: "the server's database is full, so nothing more can be stored there; try again later",
  STORAGE_UNAVAILABLE:
    "the server's database cannot be reached or cannot take writes; try again later or another instance",
  DATABASE_BUSY: "the server's database is busy with a conflicting change; try again shortly",
};

const fullErrnos = new Set(['ENOSPC', 'EDQUOT']);
const unavailableErrnos = new Set(['EROFS', 'EACCES', 'EPERM', 'ENOENT', 'ENOTDIR', 'EIO', 'ESTALE']);

/** The storage code of a raw error, or undefined when it is not a storage fault. */
function codeOf(error: unknown): StorageCode | undefined {
  if (isPdfRenderError(error)) return isStorageCode(error.code) ? error.code : undefined;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (error instanceof Database.SqliteError) {
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'DATABASE_BUSY';
    if (code === 'SQLITE_FULL') return 'STORAGE_FULL';
    // A read-only or moved file, an I/O error, a file that cannot be (re)opened: the storage, not the query.
    if (/^SQLITE_(READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB)/.test(code)) return 'STORAGE_UNAVAILABLE';
    return undefined;
  }
  if (fullErrnos.has(code)) return 'STORAGE_FULL';
  return unavailableErrnos.has(code) ? 'STORAGE_UNAVAILABLE' : undefined;
}

function isStorageCode(code: ErrorCode): code is StorageCode {
  return code in retryAfter;
}

/** A storage fault as a PdfRenderError (with Retry-After and the raw error as its cause), or undefined for any other error. */
export function storageFault(error: unknown): PdfRenderError | undefined {
  // Only errors PostgreSQL itself sent: the PostgreSQL store wraps its connection errors already.
  if (isPostgresError(error)) return postgresFault(error);
  const code = codeOf(error);
  if (!code) return undefined;
  if (isPdfRenderError(error)) return error;
  return new PdfRenderError(code, messages[code], { cause: error, retryAfter: retryAfter[code] });
}

/** A database error that is a storage fault (a read meeting a lock, say), as a PdfRenderError; undefined for anything else. */
export function databaseFault(error: unknown): PdfRenderError | undefined {
  return error instanceof Database.SqliteError || isPostgresError(error) ? storageFault(error) : undefined;
}

// The health monitor's refusals for a storage shared by instances (a database, a bucket): not a data folder.
const sharedMessages: Record<StorageCode, string> = {
  ...postgresMessages,
  STORAGE_FULL:
    "the server's shared storage (its database or file bucket) is full, so nothing more can be stored there; try again later",
  STORAGE_UNAVAILABLE:
    "the server's shared storage (its database or file bucket) cannot be reached or cannot take writes; try again later or another instance",
};

/** The PdfRenderError of a storage fault known by its code (the health monitor's own findings), worded for a data dir or, when `shared`, a shared storage. */
export function storageError(code: StorageCode, cause?: unknown, shared = false): PdfRenderError {
  return new PdfRenderError(code, (shared ? sharedMessages : messages)[code], { cause, retryAfter: retryAfter[code] });
}

/** True for an error that says the storage failed (full, unavailable, busy), not the document. */
export function isStorageFault(error: unknown): error is PdfRenderError {
  return isPdfRenderError(error) && isStorageCode(error.code);
}

/** A storage fault of PostgreSQL or its connection (refused, lost, out of connections), worded for a database server; undefined for anything else. */
export function postgresFault(error: unknown): PdfRenderError | undefined {
  if (isPdfRenderError(error)) return isStorageFault(error) ? error : undefined;
  const code = postgresStorageCode(error);
  return code
    ? new PdfRenderError(code, postgresFaultWords(error) ?? postgresMessages[code], {
        cause: error,
        retryAfter: retryAfter[code],
      })
    : undefined;
}
