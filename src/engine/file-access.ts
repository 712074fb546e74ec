/**
 * Which local files a document may load: none (the server), those in its own folder and below (a
 * file the CLI renders), or any (header and footer files named on the CLI's command line). One
 * rule for the page's own loads and for the template images pdfrender fetches itself.
 */
import { sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export type FileAccess = 'none' | 'document-folder' | 'any';

/** Why a document at `baseUrl` may not load the file: URL `url`, or null when it may. */
export function fileRefusal(url: string | URL, baseUrl: string | undefined, access: FileAccess): string | null {
  if (access === 'any') return null;
  if (access === 'none' || !baseUrl?.startsWith('file:')) return 'file: URLs are not allowed';
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch {
    return 'not a local file URL';
  }
  const folder = fileURLToPath(new URL('.', baseUrl));
  const root = folder.endsWith(sep) ? folder : `${folder}${sep}`;
  return path === folder || path.startsWith(root) ? null : "file: URLs outside the document's folder are not allowed";
}
