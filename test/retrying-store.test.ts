/**
 * The store the server uses waits out a lock held by another process on every write, without a
 * wrapper at the call site (retrying-store.ts), and leaves reads as they are: a write meeting the
 * lock lands once it is let go, a read answers at once, and a write whose wait runs past its bound
 * is refused as DATABASE_BUSY and reported to the health monitor.
 */
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { PdfRenderError } from '../src/errors.js';
import { webhookEvent } from '../src/server/api/job-event.js';
import type { Store } from '../src/store/contract.js';
import { retryingStore } from '../src/store/retrying-store.js';
import { openDb, type Db } from '../src/store/sqlite/open-db.js';
import { sqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { storeWriter } from '../src/store/store-writer.js';
import { removeTempDirs, tempDir } from './support/files.js';

afterAll(removeTempDirs);

let path: string;
let raw: Store;
let other: Db;
let reported: PdfRenderError[];
let store: Store;

beforeEach(async () => {
  path = join(await tempDir(), 'pdfrender.db');
  const db = openDb(path);
  // As the server runs it (open-backend.ts): its connection waits for no lock itself.
  db.pragma('busy_timeout = 0');
  raw = sqliteStore(db, webhookEvent);
  other = openDb(path);
  reported = [];
  store = retryingStore(raw, storeWriter({ waitMs: 2_000, onFault: (fault) => reported.push(fault) }));
  return async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await raw.close();
  };
});

/** Another process's write lock on the database, let go after `ms`. */
function lockFor(ms: number): Promise<void> {
  other.exec('BEGIN IMMEDIATE');
  return new Promise((resolve) =>
    setTimeout(() => {
      other.exec('ROLLBACK');
      resolve();
    }, ms),
  );
}

describe('the store the server uses', () => {
  it('waits out a lock held elsewhere on a write, where the store as opened fails at once', async () => {
    const released = lockFor(300);
    await expect(raw.rateWindows.hit('caller', 1_000)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    const hit = store.rateWindows.hit('caller', 1_000);
    // A read does not wait: WAL readers never meet the writer's lock.
    expect(await store.rateWindows.peek('caller', 1_000)).toMatchObject({ count: 0 });
    await released;
    expect(await hit).toMatchObject({ count: 1 });
    expect(reported).toEqual([]);
  });

  it('refuses a write whose wait passes its bound as DATABASE_BUSY, reported to the health monitor, with nothing written', async () => {
    const released = lockFor(1_000);
    const patient = retryingStore(raw, storeWriter({ waitMs: 100, onFault: (fault) => reported.push(fault) }));
    await expect(patient.rateWindows.hit('caller', 1_000)).rejects.toMatchObject({ code: 'DATABASE_BUSY' });
    expect(reported.map((fault) => fault.code)).toEqual(['DATABASE_BUSY']);
    await released;
    expect(await store.rateWindows.peek('caller', 1_000)).toMatchObject({ count: 0 });
  });

  it('waits on every write of every part, and the readiness ping, through the one declaration', async () => {
    const released = lockFor(200);
    const writes = Promise.all([
      store.webhooks.add('https://receiver.example/hook', 1_000),
      store.queue.claim('worker', 1_000, 60_000),
      store.fileIndex.insert({ id: 'f', pages: 1, bytes: 10, createdAt: 1_000, expiresAt: 2_000, owner: '' }),
      store.ping(),
    ]);
    await released;
    const [endpoint, claimed] = await writes;
    expect(endpoint.url).toBe('https://receiver.example/hook');
    expect(claimed).toBeNull();
    expect(await store.fileIndex.find('f', 1_500)).toMatchObject({ id: 'f', pages: 1 });
  });
});
