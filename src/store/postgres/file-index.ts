/**
 * The index rows of rendered files in PostgreSQL (one per file, with its expiry), shared by every
 * instance, so a fileUrl one instance returned is found by any other.
 */
import type pg from 'pg';
import type { FileIndex, StoredFile } from '../contract.js';
import { query, row, rows } from './sql.js';

const columns = 'id, pages, bytes, created_at AS "createdAt", expires_at AS "expiresAt"';

/** The file index in the database of `pool`. */
export function postgresFileIndex(pool: pg.Pool): FileIndex {
  return {
    async insert(file: StoredFile) {
      await query(pool, 'INSERT INTO files (id, pages, bytes, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)', [
        file.id,
        file.pages,
        file.bytes,
        file.createdAt,
        file.expiresAt,
      ]);
    },
    find: async (id: string, now: number) =>
      (await row<StoredFile>(pool, `SELECT ${columns} FROM files WHERE id = $1 AND expires_at > $2`, [id, now])) ??
      null,
    expired: (now: number) =>
      rows<StoredFile>(pool, `SELECT ${columns} FROM files WHERE expires_at <= $1 ORDER BY expires_at, id`, [now]),
    async remove(id: string) {
      await query(pool, 'DELETE FROM files WHERE id = $1', [id]);
    },
    known: async (ids: string[]) =>
      new Set(
        (await rows<{ id: string }>(pool, 'SELECT id FROM files WHERE id = ANY($1::text[])', [ids])).map((r) => r.id),
      ),
  };
}
