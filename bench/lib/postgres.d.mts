/** Types of postgres.mjs, for the TypeScript that shares it (test/support/postgres.ts). */
import type pg from 'pg';

/** A free loopback TCP port (freed again before its user binds it: pg_ctl, Prometheus). */
export function freePort(): Promise<number>;

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
  /**
   * `pg_ctl restart`: the server stopped in `mode` (default 'fast': sessions terminated, 57P01;
   * 'immediate': a crash, recovered at start) and started again on the same port with the same
   * settings; resolves once it accepts connections.
   */
  restart(options?: { mode?: 'smart' | 'fast' | 'immediate' }): Promise<void>;
  /** Stop the server at once (`-m immediate`), as a crash would; `start` brings it back (crash recovery). */
  crash(): Promise<void>;
  /** Start the stopped server on the same port with the same settings; resolves once it accepts connections. */
  start(): Promise<void>;
  /** The server's log so far (every start and stop appends to it). */
  log(): Promise<string>;
  /** Stop the server and remove its files, ending the pools opened through `pool`. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** The server's max_connections (default 100). */
  maxConnections?: number;
  /** synchronous_commit on: an acknowledged commit survives a crash of the server (`crash`, restart -m immediate); default off. */
  durableCommits?: boolean;
}

/** Start a throw-away cluster on a free loopback port; throws (never skips) with the reason when it cannot. */
export function startCluster(options?: ClusterOptions): Promise<Cluster>;

/** End a pool, waiting at most a second (a connection a failed test left checked out would hold it for ever). */
export function endPool(pool: pg.Pool): Promise<void>;
