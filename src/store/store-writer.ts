/**
 * Store writes that never freeze the server. better-sqlite3 is synchronous: with a busy timeout, a
 * write meeting another process's lock would stop the whole event loop until the lock is released
 * (a 10 s lock froze /healthz for 9.5 s). The server's connection waits for no lock instead, and a
 * write that meets one is tried again after a growing pause (the loop serves everything else
 * meanwhile), until it lands or its bound passes (503 DATABASE_BUSY). Every write of the server's
 * store goes through here (retrying-store.ts wraps the store where the backend is opened), awaited,
 * so a store that is asynchronous itself (PostgreSQL) fits the same call sites.
 */
import type { PdfRenderError } from '../errors.js';
import { isPostgresError } from './postgres-errors.js';
import { storageFault } from './storage-errors.js';

export interface WriteOptions {
  /** How long to keep trying while the database is locked, ms (default: the writer's bound, --busy-timeout). */
  waitMs?: number;
  /** The size of what is written, when known: a full disk is then only taken for recovered once there is room for it. */
  bytes?: number;
}

/** Run one store call (one transaction); resolves with its result. */
export type StoreWrite = <T>(work: () => T, options?: WriteOptions) => Promise<Awaited<T>>;

const firstPauseMs = 2;
const longestPauseMs = 100;
/**
 * The pause after a database that has no connection to spare (53300): each try is a new connection,
 * which the server forks a process for only to refuse it, so tries every few milliseconds from every
 * waiting request would add to the load they wait out.
 */
const outOfConnectionsPauseMs = 250;

/**
 * A writer whose calls wait up to `waitMs` for a lock held elsewhere. Storage faults come out as
 * PdfRenderErrors with a storage code (and go to `onFault` first: the health monitor), anything
 * else as it was thrown.
 */
export function storeWriter(options: {
  waitMs: number;
  onFault?: (error: PdfRenderError, bytes?: number) => void;
}): StoreWrite {
  const now = () => performance.now();
  return async <T>(work: () => T, writeOptions: WriteOptions = {}): Promise<Awaited<T>> => {
    const waitMs = writeOptions.waitMs ?? options.waitMs;
    const started = now();
    for (let pause = firstPauseMs; ; pause = Math.min(pause * 2, longestPauseMs)) {
      try {
        return await work();
      } catch (error) {
        const fault = storageFault(error);
        if (!fault) throw error;
        if (fault.code !== 'DATABASE_BUSY' || now() - started >= waitMs) {
          options.onFault?.(fault, writeOptions.bytes);
          throw fault;
        }
        if (isPostgresError(fault.cause) && fault.cause.code === '53300')
          pause = Math.max(pause, outOfConnectionsPauseMs);
      }
      // Jittered, so writers that met the same lock do not all come back at once.
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
    }
  };
}
