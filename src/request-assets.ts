/**
 * A render request's `assets`: files sent with the document (style sheets, images, fonts), by
 * name, as base64. For that render they become the document's folder (server/routes/asset-folder.ts),
 * so `<img src="logo.png">` finds them; the names are checked here, so that none can reach outside it.
 */
import { z } from 'zod';
import { PdfRenderError } from './errors.js';

/** How many assets one request may carry. */
export const maxAssets = 100;
/** The bytes of a request's assets together, decoded (past it: 413). */
export const maxAssetBytes = 50 * 1024 * 1024;

// A relative path of plain segments: letters, digits, '.', '_', '-', each segment starting with a
// letter or digit (so no '..', no hidden file, no absolute path or backslash).
const assetName = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;
/** Base64 as the request's files carry it: the standard alphabet, padding optional. */
export const base64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `assets`: name to base64 content, at most maxAssets of them, each name a plain relative path. */
export const assetsSchema = z
  .record(z.string(), z.string())
  // Checked here rather than by the record's own key and value schemas, so that every bad name and
  // content is named in a message under `assets`, together (zod says only "Invalid key in record",
  // under a path made of the name, and skips the rest after one).
  .superRefine((assets, ctx) => {
    const names = Object.keys(assets);
    if (names.length > maxAssets)
      ctx.addIssue({ code: 'custom', message: `at most ${maxAssets} assets (got ${names.length})`, input: '' });
    for (const name of names.filter((name) => name.length > 200 || !assetName.test(name)).slice(0, 5))
      ctx.addIssue({
        code: 'custom',
        message: `asset name "${name.slice(0, 200)}" must be a relative path of letters, digits, ".", "_" and "-" (each part starting with a letter or digit; no "..")`,
        input: '',
      });
    for (const name of names.filter((name) => !base64.test(assets[name]!)).slice(0, 5))
      ctx.addIssue({ code: 'custom', message: `"${name.slice(0, 200)}" must be the file as base64`, input: '' });
  });

/** The bytes `text` (base64) decodes to. */
export const base64Bytes = (text: string): number => Math.floor((text.replace(/=+$/, '').length * 3) / 4);

/** The decoded bytes of `assets` together. */
export const assetBytes = (assets: Record<string, string>): number =>
  Object.values(assets).reduce((sum, text) => sum + base64Bytes(text), 0);

/** Refuse (413) files that hold more than `limit` bytes together, naming them (`what`) and the limit: the request's own fault, never tried again. */
export function checkTotalBytes(what: string, bytes: number, limit: number): void {
  if (bytes > limit)
    throw new PdfRenderError(
      'PAYLOAD_TOO_LARGE',
      `the ${what} hold ${bytes} bytes together, more than the limit of ${limit / 1024 / 1024} MB`,
      { documentFault: true },
    );
}
