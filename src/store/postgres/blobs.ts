/**
 * The bytes of rendered PDFs in a PostgreSQL table, so one database is all several instances need
 * (--files s3://... puts them elsewhere). One INSERT writes a PDF whole or not at all. A row's time
 * is the database's clock, the clock the runtime's times follow on PostgreSQL (databaseClock), so
 * the orphan sweep's "older than" means the same on every instance.
 */
import type pg from 'pg';
import type { Blobs } from '../contract.js';
import { query, row, rows } from './sql.js';

/** Ids looked up in the index at once while looking for orphans. */
const orphanBatch = 500;
const dbNow = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

/** PDF bytes in the `blobs` table of the database of `pool` (migrated by migratePostgres). */
export function postgresBlobs(pool: pg.Pool): Blobs {
  return {
    async put(id: string, bytes: Uint8Array) {
      await query(
        pool,
        `INSERT INTO blobs (id, bytes, created_at) VALUES ($1, $2, ${dbNow}) ON CONFLICT (id) DO UPDATE SET bytes = excluded.bytes`,
        [id, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
      );
    },
    async get(id: string) {
      const found = await row<{ bytes: Buffer }>(pool, 'SELECT bytes FROM blobs WHERE id = $1', [id]);
      return found ? new Uint8Array(found.bytes.buffer, found.bytes.byteOffset, found.bytes.byteLength) : null;
    },
    async delete(id: string) {
      await query(pool, 'DELETE FROM blobs WHERE id = $1', [id]);
    },
    /** Remove bytes written before `before` that no index row names, a batch of ids at a time (in id order, so none is missed). */
    async removeOrphans(before: number, known: (ids: string[]) => Promise<Set<string>>) {
      for (let after = ''; ;) {
        const ids = (
          await rows<{ id: string }>(
            pool,
            'SELECT id FROM blobs WHERE created_at < $1 AND id > $2 ORDER BY id LIMIT $3',
            [before, after, orphanBatch],
          )
        ).map((r) => r.id);
        if (ids.length === 0) return;
        const rowed = await known(ids);
        const orphans = ids.filter((id) => !rowed.has(id));
        if (orphans.length > 0) await query(pool, 'DELETE FROM blobs WHERE id = ANY($1::text[])', [orphans]);
        after = ids[ids.length - 1]!;
      }
    },
  };
}
