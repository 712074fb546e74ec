/**
 * Rendered PDFs kept for download: the bytes in a Blobs (disk, PostgreSQL, S3), a row each in the
 * store's FileIndex with its expiry. Ids are 128 random bits, so a file URL cannot be guessed. The
 * bytes are written before the row, and removed again when the row cannot be written, so a row
 * never names missing bytes and a failed save leaves none; what a crash between the two leaves the
 * sweep removes once it is an hour old.
 */
import { randomBytes } from 'node:crypto';
import type { Blobs, FileIndex, FileStore, StoredFile } from '../contract.js';
import type { StoreWrite } from '../store-writer.js';

/** Bytes without a row younger than this may be a save between its two steps; older, they are left over. */
const orphanAgeMs = 60 * 60_000;
/** Left-overs are looked for at most this often (a listing of every file). */
const orphanScanEveryMs = 60 * 60_000;

/** One file store from an index (whose writes wait out locks themselves) and the blobs its rows name, written through `write`. */
export function fileStore(index: FileIndex, blobs: Blobs, write: StoreWrite): FileStore {
  let nextOrphanScan = 0;
  return {
    async save(pdf, pages, now, retentionMs, owner) {
      const id = randomBytes(16).toString('base64url');
      // Through the writer, so a full disk or a missing folder reaches the health monitor.
      await write(() => blobs.put(id, pdf), { bytes: pdf.byteLength });
      const file: StoredFile = {
        id,
        pages,
        bytes: pdf.byteLength,
        createdAt: now,
        expiresAt: now + retentionMs,
        owner,
      };
      try {
        await index.insert(file);
      } catch (error) {
        await blobs.delete(id).catch(() => undefined);
        throw error;
      }
      return file;
    },
    async discard(file) {
      await index.remove(file.id).catch(() => undefined);
      await blobs.delete(file.id).catch(() => undefined);
    },
    find: (id, now) => index.find(id, now),
    read: (file) => blobs.get(file.id),
    async sweep(now) {
      const expired = await index.expired(now);
      for (const file of expired) {
        await blobs.delete(file.id);
        await index.remove(file.id);
      }
      if (now >= nextOrphanScan) {
        nextOrphanScan = now + orphanScanEveryMs;
        await blobs.removeOrphans(now - orphanAgeMs, (ids) => index.known(ids));
      }
      return expired.length;
    },
  };
}
