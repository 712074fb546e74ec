/**
 * The data dir made ready before anything is opened in it: created if missing (see make-folder.ts
 * for why not with Node's recursive mkdir) and checked to be a writable folder, so a start on an
 * unusable one stops with one line naming the path and what is wrong (exit 2), having changed nothing.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { PdfRenderError } from '../errors.js';
import { makeFolder } from '../make-folder.js';

const reasons: Record<string, string> = {
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  ENOENT: 'the file system does not allow it',
  ELOOP: 'too many symbolic links',
  EIO: 'input/output error',
};

/** A file-system error as a few words and its code, e.g. "read-only file system (EROFS)". */
export function describeErrno(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return error instanceof Error ? error.message : String(error);
  return `${reasons[code] ?? (error as Error).message} (${code})`;
}

const unusable = (message: string, cause?: unknown) => new PdfRenderError('STORAGE_UNAVAILABLE', message, { cause });

/** Make `path` a writable folder, creating missing folders; `what` names it in errors ("data dir"). */
export function ensureFolder(path: string, what: string): void {
  try {
    makeFolder(path);
  } catch (error) {
    throw unusable(`${what} ${path}: ${whyNoFolder(path, error)}`, error);
  }
  requireWritable(path, `${what} ${path}`);
}

/** Why `path` could not be made a folder: the nearest thing on its way that is not a folder, or the folder that could not be created. */
function whyNoFolder(path: string, error: unknown): string {
  for (let current = path; dirname(current) !== current; current = dirname(current)) {
    const kind = entryKind(current);
    if (kind === 'other') return `${current} is not a folder`;
    if (kind === 'folder') break;
  }
  const failed = (error as { path?: unknown }).path;
  return `cannot create ${typeof failed === 'string' ? failed : path}: ${describeErrno(error)}`;
}

/** What is at `path`: a folder, something else, or nothing (missing, or under a file: ENOTDIR). */
function entryKind(path: string): 'folder' | 'other' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch {
    return 'none';
  }
}

/** Throw naming `label` when `path` cannot be written (read-only mount, permissions; root passes permissions but not EROFS). */
function requireWritable(path: string, label: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    throw unusable(`${label} is not writable: ${describeErrno(error)}`, error);
  }
}

/** When `path` exists, require a writable regular file (a database file that is a folder, say, is named as such). */
export function requireWritableFileIfPresent(path: string): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return;
  if (!stats.isFile()) throw unusable(`${path} is not a file`);
  requireWritable(path, path);
}
