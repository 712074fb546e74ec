/**
 * Which documents `pdfrender render` renders and where each PDF goes, decided before anything is
 * rendered, so that usage mistakes (a missing input, two inputs for one -o) fail fast with code 2.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PdfRenderError } from '../errors.js';

/** Where one PDF is delivered. */
export type Destination = { kind: 'file'; path: string } | { kind: 'stdout' };

/** Where one document's HTML comes from. */
export type Source = { kind: 'file'; path: string } | { kind: 'url'; url: string } | { kind: 'stdin' } | { kind: 'request' };

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
  /** The --request file, when its htmlContent or url is the document (no inputs given). */
  requestFile?: string | undefined;
  requestHasDocument: boolean;
  stdoutIsTTY: boolean;
  cwd: string;
}

/** Plan every document, or throw a USAGE error naming the problem. */
export async function planDocuments(plan: PlanInput): Promise<PlannedDocument[]> {
  if (plan.output !== undefined && plan.outDir !== undefined) throw usage('give either -o/--output or --out-dir, not both');
  const sources = await sourcesOf(plan);
  if (plan.output !== undefined && sources.length > 1) {
    throw usage(`-o/--output names one file, but ${sources.length} inputs were given; use --out-dir for several`);
  }
  const documents = sources.map(({ source, label, nameFrom }) => ({
    label,
    source,
    baseUrl: folderUrl(source.kind === 'file' ? dirname(source.path) : nameFrom ? dirname(nameFrom) : plan.cwd),
    destination: destinationOf(plan, source, nameFrom),
  }));
  for (const document of documents) {
    if (document.destination.kind === 'stdout' && plan.stdoutIsTTY) {
      throw usage('refusing to write a PDF to the terminal; use -o <file> or redirect standard output');
    }
  }
  rejectClashes(documents);
  return documents;
}

async function sourcesOf(plan: PlanInput): Promise<Array<{ source: Source; label: string; nameFrom?: string }>> {
  if (plan.inputs.length === 0) {
    if (plan.requestFile && plan.requestHasDocument) {
      return [{ source: { kind: 'request' }, label: plan.requestFile, nameFrom: resolve(plan.cwd, plan.requestFile) }];
    }
    throw usage('no input: give HTML files, http(s) URLs, - for standard input, or --request with an htmlContent or url field');
  }
  if (plan.inputs.filter((input) => input === '-').length > 1) throw usage('standard input (-) can be read only once');
  return Promise.all(
    plan.inputs.map(async (input) => {
      if (input === '-') return { source: { kind: 'stdin' } as Source, label: '<stdin>' };
      // Named after the page, in the current folder (or --out-dir), as a download would be.
      if (/^https?:\/\//i.test(input)) return { source: { kind: 'url', url: input } as Source, label: input, nameFrom: join(plan.cwd, pageName(input)) };
      const path = resolve(plan.cwd, input);
      const info = await stat(path).catch(() => null);
      if (!info) throw usage(`input not found: ${input}`);
      if (!info.isFile()) throw usage(`input is not a file: ${input}`);
      return { source: { kind: 'file', path } as Source, label: input };
    }),
  );
}

function destinationOf(plan: PlanInput, source: Source, nameFrom?: string): Destination {
  if (plan.output === '-') return { kind: 'stdout' };
  if (plan.output !== undefined) return { kind: 'file', path: resolve(plan.cwd, plan.output) };
  const named = source.kind === 'file' ? source.path : nameFrom;
  if (plan.outDir !== undefined) {
    return { kind: 'file', path: join(resolve(plan.cwd, plan.outDir), named ? pdfName(named) : 'stdin.pdf') };
  }
  // With neither flag a PDF lands beside its input; standard input goes to standard output.
  if (!named) return { kind: 'stdout' };
  return { kind: 'file', path: join(dirname(named), pdfName(named)) };
}

function rejectClashes(documents: PlannedDocument[]): void {
  const seen = new Map<string, string>();
  for (const { destination, label } of documents) {
    if (destination.kind !== 'file') continue;
    const other = seen.get(destination.path);
    if (other) throw usage(`${other} and ${label} would both be written to ${destination.path}`);
    seen.set(destination.path, label);
  }
}

// "report" for https://example.com/reports/report.html, the host name for a site's root; only
// characters safe in any file name.
function pageName(url: string): string {
  const parsed = URL.parse(url);
  const last = parsed?.pathname.split('/').filter(Boolean).pop();
  const name = (last ? basename(decodeURIComponentSafe(last), extname(last)) : parsed?.hostname) || 'page';
  return name.replace(/[^\w.-]+/g, '_').replace(/^\.+/, '_').slice(0, 100);
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
