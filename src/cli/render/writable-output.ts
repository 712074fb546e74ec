/**
 * Whether a PDF could be written at a path, found out cheaply and synchronously before anything
 * starts (Chromium among them): its nearest existing folder takes a new file. A file made and removed
 * at once is the only test that holds for root and for file systems that refuse every new file
 * whatever the permissions say (/proc, a read-only mount).
 */
import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Why no PDF can be written at `path` (resolved against `cwd`), or undefined when one can. */
export function unwritableOutput(path: string, cwd: string): string | undefined {
  let folder = dirname(resolve(cwd, path));
  // Folders still to be made are made by the render; the one they would be made in must take them.
  while (!isFolder(folder) && dirname(folder) !== folder) {
    if (exists(folder)) return `${folder} is not a folder`;
    folder = dirname(folder);
  }
  return noNewFile(folder);
}

/** Why `folder` (an existing folder) takes no new file, or undefined when it does: a file made and removed at once. */
export function noNewFile(folder: string): string | undefined {
  const probe = join(folder, `.pdfrender-probe-${process.pid}`);
  try {
    closeSync(openSync(probe, 'wx'));
    unlinkSync(probe);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return undefined;
    return code === 'EACCES' || code === 'EPERM'
      ? `no permission to write in ${folder}`
      : `${folder} takes no new file (${code ?? 'error'})`;
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}
