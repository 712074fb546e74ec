/**
 * Write a file so that readers see either nothing or the whole file: a temporary file beside the
 * target, renamed over it. A failed or interrupted render never leaves a partial PDF behind.
 */
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder } from './make-folder.js';

// The temporary file's name: this process's id, the time, a count and a random part name it apart
// from every other writer's (containers sharing a volume may share a pid) without loading crypto,
// and 'wx' refuses one that exists anyway.
let written = 0;

/** Write `data` to `path` atomically, creating the folder if needed. */
export async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  const dir = dirname(path);
  makeFolder(dir);
  // Same folder, so the rename never crosses file systems; a dot name, so globs skip it.
  const temporary = join(
    dir,
    `.${basename(path)}.${process.pid}-${Date.now().toString(36)}-${(written += 1)}-${Math.random().toString(36).slice(2, 10)}.tmp`,
  );
  try {
    await writeFile(temporary, data, { flag: 'wx' });
  } catch (error) {
    // A file of that name that was there already is another writer's, not this one's to remove.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') await rm(temporary, { force: true });
    throw error;
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
