/**
 * The data dir made ready before anything is opened in it: created one level at a time and checked
 * to be a writable folder, so a start on an unusable one stops with one line naming the path and
 * what is wrong (exit 2), having changed nothing. Not Node's recursive mkdir: where a file system
 * answers ENOENT for a folder whose parent exists (/proc does), it loops for ever in native code,
 * at full CPU and deaf to SIGTERM (whose handler is JavaScript that never gets to run).
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { PdfRenderError } from '../errors.js';

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

/** Make `path` a writable folder, creating missing folders one level at a time; `what` names it in errors ("data dir"). */
export function ensureFolder(path: string, what: string): void {
  const missing: string[] = [];
  let existing = path;
  for (;;) {
    try {
      if (!statSync(existing).isDirectory()) throw unusable(`${what} ${path}: ${existing} is not a folder`);
      break;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      // Missing, or under a file: look one level up for what is there.
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || dirname(existing) === existing) throw error instanceof PdfRenderError ? error : unusable(`${what} ${path}: cannot look at ${existing}: ${describeErrno(error)}`, error);
      missing.unshift(existing);
      existing = dirname(existing);
    }
  }
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (error) {
      // Made meanwhile by another process: as good.
      const made = (error as { code?: unknown }).code === 'EEXIST' && statSync(folder, { throwIfNoEntry: false })?.isDirectory();
      if (!made) throw unusable(`${what} ${path}: cannot create ${folder}: ${describeErrno(error)}`, error);
    }
  }
  requireWritable(path, `${what} ${path}`);
}

/** Throw naming `label` when `path` cannot be written (read-only mount, permissions; root passes permissions but not EROFS). */
export function requireWritable(path: string, label: string): void {
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
