/**
 * Local files a document may load are read by pdfrender and handed to Chromium, not read by
 * Chromium: as root, Chromium runs as another user (browser-user.ts), who cannot read the files of
 * the user rendering them. Chromium types a file: URL by its extension; so does this table.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CDPSession } from 'puppeteer-core';

const contentTypes: Record<string, string> = {
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

/**
 * The largest file handed over: it travels base64 in one DevTools message, held whole in memory on
 * both sides (and a string of more than about 512 MiB cannot be made at all).
 */
export const maxFileBytes = 100 * 1024 * 1024;

/** Answer the paused request `requestId` with the file at `url`; returns why it could not (the request then fails), or null. */
export async function fulfilFile(client: CDPSession, requestId: string, url: string): Promise<string | null> {
  const path = fileURLToPath(url);
  let body: string;
  try {
    // Non-blocking, so a FIFO cannot hold the open; only regular files, so /dev/zero cannot read forever.
    const file = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const stat = await file.stat();
      if (!stat.isFile()) throw Object.assign(new Error('not a file'), { code: stat.isDirectory() ? 'EISDIR' : 'ENOTFILE' });
      if (stat.size > maxFileBytes) throw Object.assign(new Error('too large'), { code: 'EFBIG' });
      body = (await file.readFile()).toString('base64');
    } finally {
      await file.close();
    }
  } catch (error) {
    // Aborted: the page's own failure report stays quiet, the caller reports the reason.
    await client.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => undefined);
    return readFailure((error as NodeJS.ErrnoException).code);
  }
  const type = contentTypes[extname(path).toLowerCase()];
  const responseHeaders = type ? [{ name: 'Content-Type', value: type }] : [];
  await client.send('Fetch.fulfillRequest', { requestId, responseCode: 200, responseHeaders, body }).catch(() => undefined);
  return null;
}

function readFailure(code: string | undefined): string {
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EISDIR') return 'a folder, not a file';
  if (code === 'ENOTFILE') return 'not a regular file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EFBIG') return `larger than ${maxFileBytes / 1024 / 1024} MiB`;
  return 'could not read the file';
}
