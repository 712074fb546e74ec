/**
 * The bytes of rendered files in a data dir's files/ folder, one `<id>.pdf` each. A file is written
 * under its own name, not as a temporary file renamed into place: nothing reads it before its row
 * exists, and the row is written after the bytes (file-store.ts). A write that fails is removed at
 * once; one a crash cut short has no row, and the sweep removes it an hour later.
 */
import { open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Blobs } from '../contract.js';

const pdfName = /^([A-Za-z0-9_-]{22})\.pdf$/;
const temporaryName = /^\..*\.tmp$/;

/** Blobs in `dir`, which exists (the runtime made it and watches it). */
export function diskBlobs(dir: string): Blobs {
  const pathOf = (id: string) => join(dir, `${id}.pdf`);
  return {
    // Into the folder opened at start, never a new one: a deleted folder is a fault, not recreated.
    async put(id, bytes) {
      // 'wx': a file of that name is never overwritten (nor, below, removed).
      const file = await open(pathOf(id), 'wx');
      try {
        await file.writeFile(bytes);
        await file.close();
      } catch (error) {
        await file.close().catch(() => undefined);
        await rm(pathOf(id), { force: true });
        throw error;
      }
    },
    get: (id) =>
      readFile(pathOf(id)).then(
        (bytes) => new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
        () => null,
      ),
    delete: (id) => rm(pathOf(id), { force: true }),
    async removeOrphans(before, known) {
      const names = await readdir(dir);
      const ids = names.map((name) => pdfName.exec(name)?.[1]).filter((id): id is string => id !== undefined);
      const rowed = new Set<string>();
      for (let start = 0; start < ids.length; start += 500)
        for (const id of await known(ids.slice(start, start + 500))) rowed.add(id);
      for (const name of names) {
        const id = pdfName.exec(name)?.[1];
        // A temporary file is a write that never finished, left by a version that renamed them into place.
        const leftOver = id ? !rowed.has(id) : temporaryName.test(name);
        if (!leftOver) continue;
        const stats = await stat(join(dir, name)).catch(() => undefined);
        if (stats?.isFile() && stats.mtimeMs <= before) await rm(join(dir, name), { force: true });
      }
    },
  };
}
