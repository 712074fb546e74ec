/**
 * Reading a PDF with tools that are not pdfrender's own PDF library: qpdf (structure check, objects
 * as JSON) and poppler (pdfinfo -meta for the XMP, pdfdetach for embedded files).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Run `use` with `pdf` written to a temporary file, removed after. */
export function withFile<T>(pdf: Uint8Array, use: (file: string, folder: string) => T): T {
  const folder = mkdtempSync(join(tmpdir(), 'pdfrender-tools-'));
  try {
    const file = join(folder, 'document.pdf');
    writeFileSync(file, pdf);
    return use(file, folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** qpdf --check: its exit status (0 clean, 2 errors, 3 warnings) and what it said. */
export const qpdfCheck = (pdf: Uint8Array): { status: number; output: string } =>
  withFile(pdf, (file) => {
    const result = spawnSync('qpdf', ['--check', file], { encoding: 'utf8' });
    return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
  });

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The PDF's objects as qpdf --json (version 2) gives them, with a resolver for "n 0 R" references. */
export function qpdfObjects(pdf: Uint8Array) {
  const json = withFile(pdf, (file) =>
    JSON.parse(execFileSync('qpdf', ['--json=2', '--json-key=qpdf', file], { encoding: 'utf8', maxBuffer: 1 << 28 })),
  ) as { qpdf: [unknown, Record<string, { value?: Json; stream?: { dict: Record<string, Json> } }>] };
  const objects = json.qpdf[1];
  const resolve = (value: Json | undefined): Json | undefined => {
    if (typeof value === 'string' && / 0 R$/.test(value)) {
      const object = objects[`obj:${value}`];
      return object?.value ?? (object?.stream?.dict as Json | undefined);
    }
    return value;
  };
  /** A dictionary (or a stream's dictionary), following a reference. */
  const dict = (value: Json | undefined) => resolve(value) as Record<string, Json>;
  const trailer = objects.trailer!.value as Record<string, Json>;
  return { trailer, catalog: dict(trailer['/Root']), info: dict(trailer['/Info']), dict, resolve };
}

/** The XMP packet as poppler's pdfinfo -meta prints it. */
export const pdfinfoMeta = (pdf: Uint8Array): string =>
  withFile(pdf, (file) => execFileSync('pdfinfo', ['-meta', file], { encoding: 'utf8' }));

/** The embedded files as poppler's pdfdetach lists and saves them: name to bytes, in its order. */
export const detachAll = (pdf: Uint8Array): { list: string; files: Map<string, Buffer> } =>
  withFile(pdf, (file, folder) => {
    const list = execFileSync('pdfdetach', ['-list', '-enc', 'UTF-8', file], { encoding: 'utf8' });
    const out = join(folder, 'out');
    execFileSync('mkdir', [out]);
    execFileSync('pdfdetach', ['-saveall', '-enc', 'UTF-8', '-o', out, file]);
    return { list, files: new Map(readdirSync(out).map((name) => [name, readFileSync(join(out, name))])) };
  });
