/**
 * Which local files a document may load: none (the server), or those in its own folder and below
 * (a file the CLI renders). One rule for the page's own loads and for the header and footer images
 * pdfrender fetches itself. The rule is judged on real paths, so a symbolic link inside the folder
 * that points outside it (or a folder reached through a link) cannot widen it.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export type FileAccess = 'none' | 'document-folder';

/** A file a document may load: its real path (links resolved), or why it may not. */
export type FileDecision = { path: string } | { refused: string };

/**
 * Decide whether a document at `baseUrl` may load the file: URL `url`, judged by its real path
 * against the real path of the document's folder (a missing file by its nearest existing parent).
 */
export function fileDecision(
  url: string | URL,
  baseUrl: string | undefined,
  access: FileAccess,
): Promise<FileDecision> {
  return fileJudge(baseUrl, access)(url);
}

/**
 * fileDecision for every file: URL of one document at `baseUrl`: its folder's real path is
 * resolved once, at the first file it judges, rather than once per file.
 */
export function fileJudge(
  baseUrl: string | undefined,
  access: FileAccess,
): (url: string | URL) => Promise<FileDecision> {
  if (access === 'none' || !baseUrl?.startsWith('file:'))
    return async () => ({ refused: 'file: URLs are not allowed' });
  const folder = fileURLToPath(new URL('.', baseUrl));
  let realFolder: Promise<string | null> | undefined;
  return async (url) => {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch {
      return { refused: 'not a local file URL' };
    }
    const [folderReal, realTarget] = await Promise.all([(realFolder ??= realOrNearest(folder)), realOrNearest(path)]);
    if (folderReal === null || realTarget === null) return { refused: 'the file path cannot be resolved' };
    return within(path, folder) && within(realTarget, folderReal)
      ? { path: realTarget }
      : { refused: "file: URLs outside the document's folder are not allowed" };
  };
}

function within(path: string, folder: string): boolean {
  const root = folder.endsWith(sep) ? folder : `${folder}${sep}`;
  return path === folder || `${path}${sep}` === root || path.startsWith(root);
}

// The real path; for a path that does not exist, its nearest existing parent's real path and the
// rest as written (nothing further to follow); null when it cannot be resolved (a loop, no access).
async function realOrNearest(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(path) === path) return null;
    const parent = await realOrNearest(dirname(path));
    return parent === null ? null : join(parent, basename(path));
  }
}
