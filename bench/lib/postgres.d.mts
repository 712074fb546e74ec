/** Types of postgres.mjs, for the TypeScript that shares it (test/support/postgres.ts). */
import type pg from 'pg';

export interface Cluster {
  port: number;
  /** The URL of database `name` (created by `createDatabase`). */
  url(name: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Pools opened through `pool`, ended by `stop` if still open. */
  pool(url: string, max?: number): pg.Pool;
  /** How long initdb and the start took, ms (for the report, never asserted). */
  startedInMs: number;
  stop(): Promise<void>;
}

/** Start a throw-away cluster on a free loopback port; throws (never skips) with the reason when it cannot. */
export function startCluster(options?: { maxConnections?: number }): Promise<Cluster>;

/** End a pool, waiting at most a second (a connection a failed test left checked out would hold it for ever). */
export function endPool(pool: pg.Pool): Promise<void>;
