/**
 * Rendered PDFs kept for download: the bytes under <data dir>/files, a row each in SQLite with
 * its expiry. Ids are 128 random bits, so a file URL cannot be guessed.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import type { Db } from './open-db.js';

export interface StoredFile {
  id: string;
  path: string;
  pages: number;
  bytes: number;
  createdAt: number;
  expiresAt: number;
}

interface FileRow {
  id: string;
  path: string;
  pages: number;
  bytes: number;
  created_at: number;
  expires_at: number;
}

/** The file store of a data dir. */
export function fileStore(db: Db, dir: string) {
  const insert = db.prepare('INSERT INTO files (id, path, pages, bytes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare<[string, number], FileRow>('SELECT * FROM files WHERE id = ? AND expires_at > ?');
  const expired = db.prepare<[number], FileRow>('SELECT * FROM files WHERE expires_at <= ?');
  const remove = db.prepare<[string]>('DELETE FROM files WHERE id = ?');
  return {
    /** Store a PDF until `now + retentionMs`; the file is on disk before its row exists. */
    async save(pdf: Uint8Array, pages: number, now: number, retentionMs: number): Promise<StoredFile> {
      const id = randomBytes(16).toString('base64url');
      const path = join(dir, `${id}.pdf`);
      await writeFileAtomic(path, pdf);
      const file = { id, path, pages, bytes: pdf.byteLength, createdAt: now, expiresAt: now + retentionMs };
      insert.run(id, path, pages, file.bytes, now, file.expiresAt);
      return file;
    },
    /** A file that has not expired yet, or null. */
    find(id: string, now: number): StoredFile | null {
      const row = byId.get(id, now);
      return row ? { id: row.id, path: row.path, pages: row.pages, bytes: row.bytes, createdAt: row.created_at, expiresAt: row.expires_at } : null;
    },
    /** Delete expired files and their rows; returns how many went. */
    async sweep(now: number): Promise<number> {
      const rows = expired.all(now);
      for (const row of rows) {
        await rm(row.path, { force: true });
        remove.run(row.id);
      }
      return rows.length;
    },
  };
}

export type FileStore = ReturnType<typeof fileStore>;
