/**
 * Write a file so that readers see either nothing or the whole file: a temporary file beside the
 * target, renamed over it. A failed or interrupted render never leaves a partial PDF behind.
 */
import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { makeFolder } from './make-folder.js';

/** Write `data` to `path` atomically, creating the folder if needed. */
export async function writeFileAtomic(path: string, data: Uint8Array): Promise<void> {
  const dir = dirname(path);
  makeFolder(dir);
  // Same folder, so the rename never crosses file systems; a dot name, so globs skip it.
  const temporary = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, data, { flag: 'wx' });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
