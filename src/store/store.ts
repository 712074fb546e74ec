/**
 * Everything durable the server keeps, as one interface with two implementations: SQLite in a data
 * dir (sqlite-store.ts, the default: nothing to set up) and PostgreSQL (postgres/postgres-store.ts,
 * shared by several instances). Chosen in one place at start-up (open-backend.ts). Every call is asynchronous,
 * so the same call sites serve a synchronous SQLite and a networked PostgreSQL. The SQLite modules
 * (jobs.ts, deliveries.ts, ...) define each part's methods; PostgreSQL answers the same ones.
 */
import type { Deliveries as SqliteDeliveries } from './deliveries.js';
import type { JobQueue as SqliteJobQueue } from './jobs.js';
import type { RateWindows as SqliteRateWindows } from './rate-windows.js';
import type { Redeliveries as SqliteRedeliveries } from './redeliver.js';
import type { WebhookEndpoints as SqliteWebhookEndpoints } from './webhook-endpoints.js';

/** The same methods, each answering a promise. */
export type Async<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K] };

export type JobQueue = Async<SqliteJobQueue>;
export type Deliveries = Async<SqliteDeliveries>;
export type WebhookEndpoints = Async<SqliteWebhookEndpoints>;
export type RateWindows = Async<SqliteRateWindows>;
export type Redeliveries = Async<SqliteRedeliveries>;

/** A rendered PDF kept for download until `expiresAt`. */
export interface StoredFile {
  id: string;
  pages: number;
  bytes: number;
  createdAt: number;
  expiresAt: number;
}

/**
 * Rendered PDFs: an index row each, and the bytes where the backend keeps them (the data dir's
 * files/ folder, a PostgreSQL table, an S3 bucket). A save writes the bytes before the row and
 * removes them again if the row cannot be written; the sweep removes expired files and bytes no
 * row names (left by a crash between the two steps).
 */
export interface FileStore {
  /** Store a PDF until `now + retentionMs`: the bytes first, then the row (or neither). Storage faults throw with a storage code. */
  save(pdf: Uint8Array, pages: number, now: number, retentionMs: number): Promise<StoredFile>;
  /** Remove a file saved for a job that then could not be finished (best effort: the sweep gets the rest). */
  discard(file: StoredFile): Promise<void>;
  /** A file that has not expired yet, or null. */
  find(id: string, now: number): Promise<StoredFile | null>;
  /** The bytes of a file `find` answered; null when they are gone (swept meanwhile). */
  read(file: StoredFile): Promise<Uint8Array | null>;
  /** Delete expired files and their rows, and left-over bytes no row names; returns how many expired files went. */
  sweep(now: number): Promise<number>;
}

/** The index rows of rendered files, in the store's database. */
export interface FileIndex {
  insert(file: StoredFile): Promise<void>;
  /** A file that has not expired at `now`, or null. */
  find(id: string, now: number): Promise<StoredFile | null>;
  /** Files expired at `now`. */
  expired(now: number): Promise<StoredFile[]>;
  remove(id: string): Promise<void>;
  /** Which of `ids` have a row. */
  known(ids: string[]): Promise<Set<string>>;
}

/** Where the bytes of rendered files live: the data dir's files/ folder, a PostgreSQL table or an S3 bucket. */
export interface Blobs {
  /** Write whole or not at all (a write that fails leaves nothing; nothing reads the bytes before their row is written). Storage faults throw with a storage code. */
  put(id: string, bytes: Uint8Array): Promise<void>;
  /** The bytes, or null when there are none. */
  get(id: string): Promise<Uint8Array | null>;
  /** Remove (nothing there is no error). */
  delete(id: string): Promise<void>;
  /**
   * Remove what no index row names, and what a write left half done, when written before `before`
   * (younger ones may be a save between its two steps). `known` says which ids have a row.
   */
  removeOrphans(before: number, known: (ids: string[]) => Promise<Set<string>>): Promise<void>;
}

export interface Store {
  queue: JobQueue;
  deliveries: Deliveries;
  webhooks: WebhookEndpoints;
  redeliveries: Redeliveries;
  rateWindows: RateWindows;
  /** The rows of rendered files; their bytes are in a Blobs, and file-store.ts makes the two one FileStore. */
  fileIndex: FileIndex;
  /** Resolves once a write could be made now (a lock taken and let go, a round trip): /readyz's database check. */
  ping(): Promise<void>;
  /** Close connections (after the work using them stopped). */
  close(): Promise<void>;
}
