/**
 * Local files a document may load are read by pdfrender and handed to Chromium, not read by
 * Chromium: as root, Chromium runs as another user (browser-user.ts), who cannot read the files of
 * the user rendering them. Chromium types a file: URL by its extension; so does this table.
 */
import { readFile } from 'node:fs/promises';
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

/** Answer the paused request `requestId` with the file at `url`; returns why it could not (the request then fails), or null. */
export async function fulfilFile(client: CDPSession, requestId: string, url: string): Promise<string | null> {
  let body: Buffer;
  try {
    body = await readFile(fileURLToPath(url));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : code === 'EACCES' ? 'permission denied' : 'could not read the file';
    // Aborted: the page's own failure report stays quiet, the caller reports `reason`.
    await client.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => undefined);
    return reason;
  }
  const type = contentTypes[extname(fileURLToPath(url)).toLowerCase()];
  const responseHeaders = type ? [{ name: 'Content-Type', value: type }] : [];
  await client.send('Fetch.fulfillRequest', { requestId, responseCode: 200, responseHeaders, body: body.toString('base64') }).catch(() => undefined);
  return null;
}
