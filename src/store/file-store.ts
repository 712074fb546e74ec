/**
 * Rendered PDFs kept for download: the bytes under <data dir>/files, a row each in SQLite with
 * its expiry. Ids are 128 random bits, so a file URL cannot be guessed. A file is written (whole,
 * then renamed into place) before its row, and removed again when its row cannot be written, so a
 * row never names a missing file and a failed save leaves no file; what a crash between the two
 * leaves (a file without a row, a temporary file) the sweep removes once it is an hour old.
 */
import { randomBytes } from 'node:crypto';
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import type { Db } from './open-db.js';
import type { StoreWrite } from './store-writer.js';

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

/** A file without a row younger than this may be a save between its two steps; older, it is left over. */
const orphanAgeMs = 60 * 60_000;
/** The folder is listed for left-overs at most this often (it may hold many files). */
const orphanScanEveryMs = 60 * 60_000;
const pdfName = /^([A-Za-z0-9_-]{22})\.pdf$/;
const temporaryName = /^\..*\.tmp$/;

/** The file store of a data dir; its folder `dir` exists (the runtime made it). */
export function fileStore(db: Db, dir: string, write: StoreWrite) {
  const insert = db.prepare('INSERT INTO files (id, path, pages, bytes, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare<[string, number], FileRow>('SELECT * FROM files WHERE id = ? AND expires_at > ?');
  const expired = db.prepare<[number], FileRow>('SELECT * FROM files WHERE expires_at <= ?');
  const remove = db.prepare<[string]>('DELETE FROM files WHERE id = ?');
  const known = db.prepare<[string], { id: string }>('SELECT id FROM files WHERE id IN (SELECT value FROM json_each(?))');
  let nextOrphanScan = 0;

  /** Remove files in the folder that no row names and temporary files, both older than orphanAgeMs. */
  const removeOrphans = async (now: number): Promise<void> => {
    const names = await readdir(dir);
    const ids = names.map((name) => pdfName.exec(name)?.[1]).filter((id): id is string => id !== undefined);
    const rowed = new Set<string>();
    for (let start = 0; start < ids.length; start += 500) for (const row of known.all(JSON.stringify(ids.slice(start, start + 500)))) rowed.add(row.id);
    for (const name of names) {
      const id = pdfName.exec(name)?.[1];
      const leftOver = id ? !rowed.has(id) : temporaryName.test(name);
      if (!leftOver) continue;
      const stats = await stat(join(dir, name)).catch(() => undefined);
      if (stats?.isFile() && stats.mtimeMs <= now - orphanAgeMs) {
        await rm(join(dir, name), { force: true });
      }
    }
  };

  return {
    /** Store a PDF until `now + retentionMs`: the file first, then its row (or neither). Storage faults throw with a storage code. */
    async save(pdf: Uint8Array, pages: number, now: number, retentionMs: number): Promise<StoredFile> {
      const id = randomBytes(16).toString('base64url');
      const path = join(dir, `${id}.pdf`);
      // Into the folder opened at start, never a new one: a deleted folder is a fault, not recreated.
      // Through the writer, so a full disk or a missing folder reaches the health monitor.
      await write(() => writeFileAtomic(path, pdf, { createFolder: false }), { bytes: pdf.byteLength });
      const file = { id, path, pages, bytes: pdf.byteLength, createdAt: now, expiresAt: now + retentionMs };
      try {
        await write(() => insert.run(id, path, pages, file.bytes, now, file.expiresAt));
      } catch (error) {
        await rm(path, { force: true }).catch(() => undefined);
        throw error;
      }
      return file;
    },
    /** Remove a file saved for a job that then could not be finished (best effort: the sweep gets the rest). */
    async discard(file: StoredFile): Promise<void> {
      await write(() => remove.run(file.id)).catch(() => undefined);
      await rm(file.path, { force: true }).catch(() => undefined);
    },
    /** A file that has not expired yet, or null. */
    find(id: string, now: number): StoredFile | null {
      const row = byId.get(id, now);
      return row ? { id: row.id, path: row.path, pages: row.pages, bytes: row.bytes, createdAt: row.created_at, expiresAt: row.expires_at } : null;
    },
    /** Delete expired files and their rows, and (hourly) left-over files no row names; returns how many expired files went. */
    async sweep(now: number): Promise<number> {
      const rows = expired.all(now);
      for (const row of rows) {
        await rm(row.path, { force: true });
        await write(() => remove.run(row.id));
      }
      if (now >= nextOrphanScan) {
        nextOrphanScan = now + orphanScanEveryMs;
        await removeOrphans(now);
      }
      return rows.length;
    },
  };
}

export type FileStore = ReturnType<typeof fileStore>;
