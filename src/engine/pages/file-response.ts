/**
 * Local files a document may load are read by pdfrender and handed to Chromium, not read by
 * Chromium: as root, Chromium runs as another user (browser-user.ts), who cannot read the files of
 * the user rendering them.
 */
import type { CDPSession } from 'puppeteer-core';
import { fileType, LocalFileError, readLocalFile } from '../local-file.js';

/**
 * The largest file handed over: it travels base64 in one DevTools message, held whole in memory on
 * both sides (and a string of more than about 512 MiB cannot be made at all).
 */
export const maxFileBytes = 100 * 1024 * 1024;

/**
 * Answer the paused request `requestId` for `url` with the file at `path` (its real path, already
 * allowed); returns why it could not be read (the request then fails), or null.
 */
export async function fulfilFile(
  client: CDPSession,
  requestId: string,
  url: string,
  path: string,
  noStore = false,
): Promise<string | null> {
  let body: string;
  try {
    body = (await readLocalFile(path, maxFileBytes)).toString('base64');
  } catch (error) {
    // Aborted: the page's own failure report stays quiet, the caller reports the reason.
    await client.send('Fetch.failRequest', { requestId, errorReason: 'Aborted' }).catch(() => undefined);
    if (error instanceof LocalFileError) return error.message;
    throw error;
  }
  const type = fileType(new URL(url).pathname);
  // With `noStore` (--watch), read from disk for every document: an edited file must not come from
  // Chromium's memory cache as it was. Otherwise a batch's shared style sheet is read once per page.
  const responseHeaders = [
    ...(type ? [{ name: 'Content-Type', value: type }] : []),
    ...(noStore ? [{ name: 'Cache-Control', value: 'no-store' }] : []),
  ];
  await client
    .send('Fetch.fulfillRequest', { requestId, responseCode: 200, responseHeaders, body })
    .catch(() => undefined);
  return null;
}
