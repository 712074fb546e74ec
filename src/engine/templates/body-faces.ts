/**
 * A header or footer that names a font family the document declares with `@font-face` gets that
 * face too: its font file is fetched under the rules template images are held to (the network
 * policy, the file rule, a byte budget, the render's deadline) and the face is written into the
 * template as a data: URL, which the page then loads (pages/page-fonts.ts) so that Chromium draws
 * the template with it. Only what the document's own rules name is fetched, for the families the
 * templates name, so nothing is fetched that the document could not have fetched itself.
 */
import { cssReferences } from '../../markup/css-references.js';
import type { FontFaceRule } from '../font-faces.js';
import type { ResourceIssue } from '../network-report.js';
import { ByteBudget } from './byte-budget.js';
import { fetchMany, megabytes, type FetchManyOptions } from './fetch-many.js';

/** Faces of the document one request's templates may be given: how many, and their bytes written into the templates together. */
export const maxBodyFaces = 32;
export const maxBodyFaceBytes = 10 * 1024 * 1024;

/** What the templates get of the document's faces. */
export interface BodyFaces {
  /** For each template, the `<style>` to put before it (empty for none). */
  styles: string[];
  /** The data: URLs written into them, for the page to load before it prints. */
  fonts: string[];
  /** Faces left out, for the render's warnings. */
  warnings: string[];
}

// A URL that can go into url("...") and a FontFace source as it is.
const plainDataUrl = /^data:[^\s"'\\()]*$/i;
// A serialised family or descriptor value that can be written back into a rule as it is.
const plainValue = /^[^;{}<>\\]*$/;

/** The family names (lower case) `faces` declare, without quotes. */
export const familyName = (family: string): string =>
  family
    .trim()
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim()
    .toLowerCase();

/**
 * Give each template (by the families it names, `families`) the document's `faces` of those
 * families, fetching their font files (`options`); a face whose file cannot be had is left out
 * with a warning, as is one past the bounds.
 */
export async function bodyFacesForTemplates(
  faces: FontFaceRule[],
  families: string[][],
  options: FetchManyOptions,
  report: (list: 'blocked' | 'failed', issue: ResourceIssue) => void,
): Promise<BodyFaces> {
  const warnings: string[] = [];
  const wanted = faces.filter(
    (face) => plainValue.test(face.family) && families.some((names) => names.includes(familyName(face.family))),
  );
  if (wanted.length > maxBodyFaces)
    warnings.push(
      `the header and footer name ${wanted.length} of the document's font faces; only the first ${maxBodyFaces} are used`,
    );
  const chosen = wanted.slice(0, maxBodyFaces).flatMap((face) => {
    const url = fontUrl(face);
    return url ? [{ face, url }] : [];
  });
  const toFetch = [...new Set(chosen.map(({ url }) => url).filter((url) => !url.startsWith('data:')))];
  let fetched = new Map<string, string>();
  try {
    const resources = await fetchMany(toFetch, new ByteBudget(maxBodyFaceBytes), options, (list, issue) => {
      report(list, issue);
      warnings.push(`header and footer font ${issue.url} (the document's @font-face) was left out: ${issue.reason}`);
    });
    fetched = new Map(
      [...resources].map(([url, { bytes, contentType }]) => [
        url,
        `data:${/^font\/[\w.+-]+$/.test(contentType) ? contentType : 'application/octet-stream'};base64,${Buffer.from(bytes).toString('base64')}`,
      ]),
    );
  } catch (error) {
    if (options.signal.aborted) throw error;
    warnings.push(
      `the document's fonts the header and footer name are larger than ${megabytes(maxBodyFaceBytes)} MB together: the header and footer print without them`,
    );
  }
  let carried = 0;
  const fonts = new Set<string>();
  const styles = families.map((names) => {
    const rules = chosen.flatMap(({ face, url }) => {
      const data = url.startsWith('data:') ? url : fetched.get(url);
      if (!data || !names.includes(familyName(face.family))) return [];
      if (carried + data.length > maxBodyFaceBytes) {
        warnings.push(
          `the document's font ${face.family} was left out of a header or footer: the fonts they carry would pass ${megabytes(maxBodyFaceBytes)} MB`,
        );
        return [];
      }
      carried += data.length;
      fonts.add(data);
      const descriptors = Object.entries(face.descriptors)
        .filter(([, value]) => plainValue.test(value))
        .map(([name, value]) => `${name}:${value};`)
        .join('');
      return [`@font-face{font-family:${face.family};src:url("${data}");${descriptors}}`];
    });
    return rules.length > 0 ? `<style>${rules.join('')}</style>` : '';
  });
  return { styles, fonts: [...fonts], warnings: [...new Set(warnings)] };
}

// The URL of the face's first font file a browser would take (not an EOT or SVG font), absolute;
// null when there is none (local() only, a relative URL with no base).
function fontUrl(face: FontFaceRule): string | null {
  const src = `@font-face{src:${face.src}}`;
  for (const reference of cssReferences(src, true)) {
    if (reference.kind !== 'font') continue;
    const after = src.slice(reference.end, src.indexOf(',', reference.end) >>> 0);
    if (/^\s*format\(\s*["']?(embedded-opentype|svg)/i.test(after)) continue;
    const url = reference.url.trim();
    if (/^data:/i.test(url)) return plainDataUrl.test(url) ? url : null;
    try {
      const absolute = new URL(url, face.base);
      return absolute.protocol === 'http:' || absolute.protocol === 'https:' || absolute.protocol === 'file:'
        ? absolute.href
        : null;
    } catch {
      return null;
    }
  }
  return null;
}
