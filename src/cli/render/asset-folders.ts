/**
 * `--assets-dir`: folders the documents of `pdfrender render` and their templates may load files
 * from besides their own. Checked before the browser starts, so a mistyped folder is one usage error
 * rather than a blocked stylesheet in every document.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { PdfRenderError } from '../../errors.js';
import type { FileAccess } from '../../engine/file-access.js';

/** The CLI's file rule: the document's folder, and each `--assets-dir` (relative to `cwd`), which must be a folder. */
export async function cliFileAccess(assetsDirs: readonly string[], cwd: string): Promise<FileAccess> {
  if (assetsDirs.length === 0) return 'document-folder';
  const folders = await Promise.all(
    assetsDirs.map(async (dir) => {
      const folder = resolve(cwd, dir);
      const info = await stat(folder).catch((error: NodeJS.ErrnoException) => {
        throw new PdfRenderError('USAGE', `--assets-dir: cannot use ${dir}: ${error.code ?? String(error)}`, {
          cause: error,
        });
      });
      if (!info.isDirectory()) throw new PdfRenderError('USAGE', `--assets-dir: ${dir} is not a folder`);
      return folder;
    }),
  );
  return { documentFolder: true, folders };
}
