/**
 * mkdir -p without Node's recursive mkdir: where a file system answers ENOENT for a folder whose
 * parent exists (/proc does), that one loops for ever in native code, at full CPU and deaf to
 * SIGTERM (its handler is JavaScript that never gets to run). Here each folder is tried at most
 * twice: once, and once more after its parent was made. Errors are Node's own, naming the path.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** Make `path` and any missing parents; a folder already there is fine, anything else there is EEXIST. */
export function makeFolder(path: string): void {
  try {
    makeOne(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) throw error;
    makeFolder(dirname(path));
    makeOne(path);
  }
}

function makeOne(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    // Already a folder (or made meanwhile by another process): as good.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(path, { throwIfNoEntry: false })?.isDirectory())
      throw error;
  }
}
