/**
 * Which local files a document may load: none (the server), or those in its own folder and below
 * (a file the CLI renders), and in the asset folders the caller named (--assets-dir); a header or
 * footer read from a file may also load from that file's folder. One rule for the page's own loads
 * and for the header and footer resources pdfrender fetches itself. The rule is judged on real
 * paths, so a symbolic link inside a folder that points outside it (or a folder reached through a
 * link) cannot widen it.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * 'none': no file: URLs; 'document-folder': the document's own folder and below; an object: the
 * document's folder when `documentFolder` is true, and each of `folders` (absolute, or relative to
 * the current directory) and below.
 */
export type FileAccess = 'none' | 'document-folder' | { documentFolder?: boolean; folders: readonly string[] };

/** `access` opened further by `more` (a render's own): the document's folder if either opens it, the folders of both. */
export function widerAccess(access: FileAccess, more: FileAccess | undefined): FileAccess {
  if (more === undefined) return access;
  const [a, b] = [access, more].map((rule) =>
    typeof rule === 'string' ? { documentFolder: rule === 'document-folder', folders: [] } : rule,
  );
  return { documentFolder: Boolean(a!.documentFolder || b!.documentFolder), folders: [...a!.folders, ...b!.folders] };
}

/** The folders one document (or its templates) may read files from, and how a refusal names them. */
export interface FileScope {
  folders: readonly string[];
  /** "the document's folder", "the document's folder and the asset folders", ... */
  named: string;
}

/** A file a document may load: its real path (links resolved), or why it may not. */
export type FileDecision = { path: string } | { refused: string };

/**
 * The scope of a document at `baseUrl` under `access`; `templateUrls` (the file: URLs of header and
 * footer files) add their folders, for the templates' own resources.
 */
export function fileScope(
  access: FileAccess,
  baseUrl: string | undefined,
  templateUrls: readonly string[] = [],
): FileScope {
  const rule = typeof access === 'string' ? { documentFolder: access === 'document-folder', folders: [] } : access;
  const own = rule.documentFolder && baseUrl?.startsWith('file:') ? [fileURLToPath(new URL('.', baseUrl))] : [];
  // A template's folder is its own "document folder": readable where the document's is.
  const templates = rule.documentFolder
    ? templateUrls.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(new URL('.', url)))
    : [];
  // A page loaded from the network reads no local file, whatever folders are open to local documents.
  const local = baseUrl === undefined || baseUrl === 'about:blank' || baseUrl.startsWith('file:');
  const assets = local ? rule.folders.map((folder) => resolve(folder)) : [];
  const parts = [
    ...(own.length > 0 ? ["the document's folder"] : []),
    ...(templates.length > 0 ? ["the header and footer files' folders"] : []),
    ...(assets.length > 0 ? ['the asset folders'] : []),
  ];
  const named = parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return { folders: [...new Set([...own, ...templates, ...assets])], named };
}

/**
 * Whether a file: URL may be loaded within `scope`, judged by its real path against the folders'
 * real paths (a missing file by its nearest existing parent's). The folders' real paths are
 * resolved once, at the first file it judges, rather than once per file.
 */
export function fileJudge(scope: FileScope | undefined): (url: string | URL) => Promise<FileDecision> {
  if (!scope || scope.folders.length === 0) return async () => ({ refused: 'file: URLs are not allowed' });
  let realFolders: Promise<Array<string | null>> | undefined;
  return async (url) => {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch {
      return { refused: 'not a local file URL' };
    }
    const [reals, realTarget] = await Promise.all([
      (realFolders ??= Promise.all(scope.folders.map(realOrNearest))),
      realOrNearest(path),
    ]);
    if (realTarget === null) return { refused: 'the file path cannot be resolved' };
    // Inside a folder as written and as it really is: a link in it that leads out does not count.
    const inside = scope.folders.some((folder, index) => {
      const real = reals[index];
      return real != null && within(path, folder) && within(realTarget, real);
    });
    return inside ? { path: realTarget } : { refused: `file: URLs outside ${scope.named} are not allowed` };
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
