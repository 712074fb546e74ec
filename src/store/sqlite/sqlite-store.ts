/**
 * The SQLite Store: a data dir's database, answering the asynchronous Store interface with the
 * synchronous modules (jobs.ts, deliveries.ts, ...). Each call still runs whole before its promise
 * is made, so a transaction never spans an await.
 */
import { deliveries } from './deliveries.js';
import { fileIndex } from './file-index.js';
import { jobQueue } from './jobs.js';
import type { Db } from './open-db.js';
import { rateWindows } from './rate-windows.js';
import { redeliveries } from './redeliver.js';
import type { Async, JobEventBuilder, Store } from '../contract.js';
import { webhookEndpoints } from './webhook-endpoints.js';

/** The same object with every method answering a promise (a throw becomes a rejection). */
function asAsync<T extends object>(methods: T): Async<T> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(methods)) {
    wrapped[name] =
      typeof member === 'function'
        ? (...args: unknown[]) => new Promise((resolve) => resolve(member(...args)))
        : member;
  }
  return wrapped as Async<T>;
}

/** The Store of an open SQLite database (openDb); closing it closes the database. */
export function sqliteStore(db: Db, eventOf: JobEventBuilder): Store {
  return {
    queue: asAsync(jobQueue(db, eventOf)),
    deliveries: asAsync(deliveries(db)),
    webhooks: asAsync(webhookEndpoints(db)),
    redeliveries: asAsync(redeliveries(db, eventOf)),
    rateWindows: asAsync(rateWindows(db)),
    fileIndex: asAsync(fileIndex(db)),
    // Takes the write lock and lets it go: fails at once while another process holds it.
    ping: async () => void db.exec('BEGIN IMMEDIATE; ROLLBACK'),
    close: async () => void db.close(),
  };
}
