/**
 * Reading a local file a document or template may load: regular files only, bounded before a byte
 * is read, and never a blocking open (a FIFO would hold a thread of the pool forever). Used for the
 * CLI's document folder, both for what Chromium loads (pdfrender reads it: as root, Chromium runs
 * as another user, see browser-user.ts) and for header and footer images.
 */
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { extname } from 'node:path';

// Media types by extension, as Chromium types a file: URL.
const fileTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.xhtml': 'application/xhtml+xml',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'text/xml',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.bmp': 'image/bmp',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.pdf': 'application/pdf',
};

/** The media type of a file named `path`, by its extension; undefined for one not in the table. */
export function fileType(path: string): string | undefined {
  return fileTypes[extname(path).toLowerCase()];
}

/** Why a local file was not read; its message is a short reason, safe to report. */
export class LocalFileError extends Error {}

/**
 * The bytes of the regular file at `path`, at most `maxBytes`; `admit(size)` may refuse the size
 * (a budget) by returning false. Throws LocalFileError saying why it was not read.
 */
export async function readLocalFile(
  path: string,
  maxBytes: number,
  admit: (size: number) => boolean = () => true,
): Promise<Buffer> {
  let file: FileHandle;
  try {
    file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw new LocalFileError(openFailure((error as NodeJS.ErrnoException).code), { cause: error });
  }
  try {
    const info = await file.stat();
    if (info.isDirectory()) throw new LocalFileError('a folder, not a file');
    if (!info.isFile()) throw new LocalFileError('not a regular file');
    if (info.size > maxBytes) throw new LocalFileError(`larger than ${sizeName(maxBytes)}`);
    if (!admit(info.size)) throw new LocalFileError('larger than the bytes left for it');
    const bytes = Buffer.alloc(info.size);
    const { bytesRead } = await file.read(bytes, 0, info.size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

function openFailure(code: string | undefined): string {
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return 'could not read the file';
}

function sizeName(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / 1024 / 1024} MiB` : `${bytes} bytes`;
}
