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
import { assetBytes, maxAssetBytes } from '../request-assets.js';
import type { RenderOptions } from './engine.js';

/**
 * Run `render` with the render options that make `assets` the document's folder (none without
 * assets). Throws PAYLOAD_TOO_LARGE past maxAssetBytes, VALIDATION_FAILED for names that collide
 * (`a` and `a/b`).
 */
export async function withAssetFolder<T>(
  assets: Record<string, string> | null,
  render: (options: Pick<RenderOptions, 'baseUrl' | 'files'>) => Promise<T>,
): Promise<T> {
  if (assets === null) return render({});
  const bytes = assetBytes(assets);
  if (bytes > maxAssetBytes)
    throw new PdfRenderError(
      'PAYLOAD_TOO_LARGE',
      `the assets hold ${bytes} bytes together, more than the limit of ${maxAssetBytes / 1024 / 1024} MB`,
    );
  const folder = await mkdtemp(join(tmpdir(), 'pdfrender-assets-'));
  try {
    for (const [name, content] of Object.entries(assets)) {
      const path = join(folder, name);
      try {
        await mkdir(dirname(path), { recursive: true });
        // 'wx': a name never replaces another (or what a folder of that name made).
        await writeFile(path, Buffer.from(content, 'base64'), { flag: 'wx' });
      } catch (error) {
        throw new PdfRenderError('VALIDATION_FAILED', `assets: "${name}" cannot be written beside the others`, {
          fieldErrors: { assets: [`"${name}" collides with another asset's name`] },
          cause: error,
        });
      }
    }
    return await render({ baseUrl: pathToFileURL(`${folder}${sep}`).href, files: 'document-folder' });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
