/**
 * Which documents `pdfrender render` renders and where each PDF goes, decided before anything is
 * rendered, so that usage mistakes (a missing input, two inputs for one -o) fail fast with code 2.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PdfRenderError } from '../../errors.js';
import { noNewFile } from './writable-output.js';

/** Where one PDF is delivered. */
export type Destination = { kind: 'file'; path: string } | { kind: 'stdout' };

/** Where one document's HTML comes from. */
export type Source =
  { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'stdin' } | { kind: 'request' };

export interface PlannedDocument {
  /** How the document is named in progress lines and the JSON summary. */
  label: string;
  source: Source;
  /** The folder its relative links resolve against, as a file: URL ending in "/". */
  baseUrl: string;
  destination: Destination;
}

export interface PlanInput {
  inputs: string[];
  output?: string | undefined;
  outDir?: string | undefined;
  /** With outDir: each PDF keeps its input's folder below the inputs' common folder (--keep-folders). */
  keepFolders?: boolean | undefined;
  /** The --request file, when its htmlContent or url is the document (no inputs given). */
  requestFile?: string | undefined;
  requestHasDocument: boolean;
  stdoutIsTTY: boolean;
  cwd: string;
}

/** Plan every document, or throw a USAGE error naming the problem. */
export async function planDocuments(plan: PlanInput): Promise<PlannedDocument[]> {
  if (plan.output !== undefined && plan.outDir !== undefined)
    throw usage('give either -o/--output or --out-dir, not both');
  if (plan.keepFolders && plan.outDir === undefined)
    throw usage('--keep-folders needs --out-dir, under which the folders are kept');
  const sources = await sourcesOf(plan);
  if (plan.output !== undefined && sources.length > 1) {
    throw usage(`-o/--output names one file, but ${sources.length} inputs were given; use --out-dir for several`);
  }
  const folders = sources.flatMap(({ source, nameFrom }) =>
    source.kind === 'file' ? [dirname(source.path)] : nameFrom ? [dirname(nameFrom)] : [],
  );
  const base = plan.keepFolders ? commonFolder(folders) : undefined;
  const documents = sources.map(({ source, label, nameFrom }) => ({
    label,
    source,
    baseUrl: folderUrl(source.kind === 'file' ? dirname(source.path) : nameFrom ? dirname(nameFrom) : plan.cwd),
    destination: destinationOf(plan, source, nameFrom, base),
  }));
  for (const document of documents) {
    if (document.destination.kind === 'stdout' && plan.stdoutIsTTY) {
      throw usage('refusing to write a PDF to the terminal; use -o <file> or redirect standard output');
    }
  }
  rejectClashes(documents, plan.outDir !== undefined);
  await checkDestinations(documents);
  return documents;
}

// Where each PDF goes must be writable before anything renders (a render of hundreds of documents
// should not end in one EACCES each): an existing folder named as the file is refused, and the
// nearest existing folder of each destination must be a folder this process may write in (missing
// folders below it are made when the PDF is written).
async function checkDestinations(documents: PlannedDocument[]): Promise<void> {
  const problems = new Set<string>();
  const folders = new Map<string, string>();
  await Promise.all(
    documents.map(async ({ destination }) => {
      if (destination.kind !== 'file') return;
      if ((await stat(destination.path).catch(() => null))?.isDirectory())
        problems.add(`cannot write ${destination.path}: it is a folder; name the PDF file (or use --out-dir)`);
      folders.set(dirname(destination.path), destination.path);
    }),
  );
  await Promise.all(
    [...folders].map(async ([folder, example]) => {
      let existing = folder;
      let info = await stat(existing).catch(() => null);
      while (!info && dirname(existing) !== existing) {
        existing = dirname(existing);
        info = await stat(existing).catch(() => null);
      }
      if (!info?.isDirectory()) problems.add(`cannot write ${example}: ${existing} is not a folder`);
      else {
        // Tried, not asked (access): root is allowed everything, and /proc or a read-only mount refuses anyway.
        const why = noNewFile(existing);
        if (why) problems.add(`cannot write ${example}: ${why}`);
      }
    }),
  );
  if (problems.size > 0) throw usage([...problems].join('\n'));
}

// The deepest folder holding all of `folders`.
function commonFolder(folders: string[]): string | undefined {
  if (folders.length === 0) return undefined;
  let common = folders[0]!;
  const outside = (folder: string) => {
    const path = relative(common, folder);
    return path === '..' || path.startsWith(`..${sep}`) || isAbsolute(path);
  };
  for (const folder of folders) while (outside(folder) && dirname(common) !== common) common = dirname(common);
  return common;
}

async function sourcesOf(plan: PlanInput): Promise<Array<{ source: Source; label: string; nameFrom?: string }>> {
  if (plan.inputs.length === 0) {
    if (plan.requestFile && plan.requestHasDocument) {
      return [{ source: { kind: 'request' }, label: plan.requestFile, nameFrom: resolve(plan.cwd, plan.requestFile) }];
    }
    throw usage(
      'no input: give HTML files, http(s) URLs, - for standard input, or --request with an htmlContent or url field',
    );
  }
  if (plan.inputs.filter((input) => input === '-').length > 1) throw usage('standard input (-) can be read only once');
  const checked = await Promise.all(
    plan.inputs.map(async (input) => {
      if (input === '-') return { source: { kind: 'stdin' } as Source, label: '<stdin>' };
      // Named after the page, in the current folder (or --out-dir), as a download would be.
      if (/^https?:\/\//i.test(input))
        return {
          source: { kind: 'url', url: input } as Source,
          label: input,
          nameFrom: join(plan.cwd, pageName(input)),
        };
      const path = resolve(plan.cwd, input);
      const info = await stat(path).catch(() => null);
      if (!info) return { problem: `input not found: ${input}` };
      if (!info.isFile()) return { problem: `input is not a file: ${input}` };
      // A request body given as a document would print its JSON as text.
      if (extname(path).toLowerCase() === '.json')
        return {
          problem: `${input} is JSON, not HTML: to render the request body it holds, give it with --request ${input}`,
        };
      return { source: { kind: 'file', path } as Source, label: input };
    }),
  );
  // Every bad input at once, a line each: a batch is fixed in one go, not one rerun per typo.
  const problems = checked.flatMap((item) => ('problem' in item ? [item.problem] : []));
  if (problems.length > 0) throw usage(problems.join('\n'));
  return checked.filter((item): item is Exclude<(typeof checked)[number], { problem: string }> => !('problem' in item));
}

function destinationOf(
  plan: PlanInput,
  source: Source,
  nameFrom: string | undefined,
  base: string | undefined,
): Destination {
  if (plan.output === '-') return { kind: 'stdout' };
  if (plan.output !== undefined) return { kind: 'file', path: resolve(plan.cwd, plan.output) };
  const named = source.kind === 'file' ? source.path : nameFrom;
  if (plan.outDir !== undefined) {
    // With --keep-folders, reports/q3/summary.html and reports/q4/summary.html stay apart.
    const below = base && named ? relative(base, dirname(named)) : '';
    return { kind: 'file', path: join(resolve(plan.cwd, plan.outDir), below, named ? pdfName(named) : 'stdin.pdf') };
  }
  // With neither flag a PDF lands beside its input; standard input goes to standard output.
  if (!named) return { kind: 'stdout' };
  return { kind: 'file', path: join(dirname(named), pdfName(named)) };
}

function rejectClashes(documents: PlannedDocument[], inOutDir: boolean): void {
  const seen = new Map<string, PlannedDocument>();
  for (const document of documents) {
    const { destination, label } = document;
    if (destination.kind !== 'file') continue;
    const other = seen.get(destination.path);
    // Inputs from two folders can be kept apart under --out-dir; two in one folder cannot.
    const hint =
      inOutDir && other && other.baseUrl !== document.baseUrl
        ? '; --keep-folders keeps their folders under --out-dir'
        : '';
    if (other) throw usage(`${other.label} and ${label} would both be written to ${destination.path}${hint}`);
    seen.set(destination.path, document);
  }
}

// "report.pdf" for https://example.com/reports/report.html, "example.com.pdf" for a site's root;
// only characters safe in any file name. It ends in .pdf so that pdfName drops no more of it.
function pageName(url: string): string {
  const parsed = URL.parse(url);
  const last = parsed?.pathname.split('/').filter(Boolean).pop();
  const name = (last ? basename(decodeURIComponentSafe(last), extname(last)) : parsed?.hostname) || 'page';
  return `${name
    .replace(/[^\w.-]+/g, '_')
    .replace(/^\.+/, '_')
    .slice(0, 100)}.pdf`;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function pdfName(path: string): string {
  return `${basename(path, extname(path))}.pdf`;
}

function folderUrl(folder: string): string {
  const url = pathToFileURL(folder).href;
  return url.endsWith('/') ? url : `${url}/`;
}

function usage(message: string): PdfRenderError {
  return new PdfRenderError('USAGE', message);
}
