/** The index rows of rendered files in SQLite (contract.ts FileIndex). */
import type { Db } from './open-db.js';
import type { FileIndex, StoredFile, Sync } from '../contract.js';

interface FileRow {
  id: string;
  pages: number;
  bytes: number;
  created_at: number;
  expires_at: number;
}

const fromRow = (row: FileRow): StoredFile => ({
  id: row.id,
  pages: row.pages,
  bytes: row.bytes,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
});

/** The files table of a data dir. */
export function fileIndex(db: Db) {
  // `path` is kept for the schema's sake (rows of older versions named their file); the bytes are found by id.
  const insert = db.prepare<[string, string, number, number, number, number]>(
    'INSERT INTO files (id, path, pages, bytes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const byId = db.prepare<[string, number], FileRow>('SELECT * FROM files WHERE id = ? AND expires_at > ?');
  const expired = db.prepare<[number], FileRow>('SELECT * FROM files WHERE expires_at <= ?');
  const remove = db.prepare<[string]>('DELETE FROM files WHERE id = ?');
  const known = db.prepare<[string], { id: string }>(
    'SELECT id FROM files WHERE id IN (SELECT value FROM json_each(?))',
  );
  return {
    insert(file: StoredFile): void {
      insert.run(file.id, `${file.id}.pdf`, file.pages, file.bytes, file.createdAt, file.expiresAt);
    },
    find(id: string, now: number): StoredFile | null {
      const row = byId.get(id, now);
      return row ? fromRow(row) : null;
    },
    expired: (now: number): StoredFile[] => expired.all(now).map(fromRow),
    remove(id: string): void {
      remove.run(id);
    },
    known: (ids: string[]): Set<string> => new Set(known.all(JSON.stringify(ids)).map((row) => row.id)),
  } satisfies Sync<FileIndex>;
}
