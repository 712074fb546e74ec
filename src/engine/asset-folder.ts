/**
 * A request's assets as the document's folder for one render: written into a fresh temporary
 * folder (names checked by request-assets.ts, so none reaches outside it), rendered from with that
 * folder readable, and deleted once the render is over, whatever its outcome.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PdfRenderError } from '../errors.js';
import { assetBytes, checkTotalBytes, maxAssetBytes } from '../request-assets.js';
import type { FileAccess } from './file-access.js';

/**
 * Refuse, before anything is written (and before an async job is queued: engine.check runs it), the
 * assets no folder can hold: more than maxAssetBytes together (413), or names that collide, one the
 * folder of another (`a` and `a/b`) or two alike but for case (on a disk that ignores it). The
 * request's own fault, so never tried again.
 */
export function checkAssets(assets: Record<string, string>): void {
  checkTotalBytes('assets', assetBytes(assets), maxAssetBytes);
  const names = new Set(Object.keys(assets).map((name) => name.toLowerCase()));
  const folders = new Set(
    [...names].flatMap((name) =>
      name
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const clashes = Object.keys(assets).filter(
    (name, index, all) =>
      folders.has(name.toLowerCase()) || all.findIndex((other) => other.toLowerCase() === name.toLowerCase()) !== index,
  );
  if (clashes.length > 0)
    throw new PdfRenderError('VALIDATION_FAILED', 'assets: names collide', {
      fieldErrors: {
        assets: clashes.slice(0, 5).map((name) => `"${name.slice(0, 200)}" collides with another asset's name`),
      },
      documentFault: true,
    });
}

/**
 * Run `render` with the render options that make `assets` the document's folder (none without
 * assets), after checkAssets.
 */
export async function withAssetFolder<T>(
  assets: Record<string, string> | null,
  render: (options: { baseUrl?: string; files?: FileAccess }) => Promise<T>,
): Promise<T> {
  if (assets === null) return render({});
  checkAssets(assets);
  const folder = await mkdtemp(join(tmpdir(), 'pdfrender-assets-'));
  try {
    for (const [name, content] of Object.entries(assets)) {
      const path = join(folder, name);
      await mkdir(dirname(path), { recursive: true });
      // 'wx': a name never replaces another (checkAssets has refused names that could).
      await writeFile(path, Buffer.from(content, 'base64'), { flag: 'wx' });
    }
    return await render({ baseUrl: pathToFileURL(`${folder}${sep}`).href, files: 'document-folder' });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
