/**
 * `npm run validate` (scripts/validate.mjs): veraPDF cannot be installed here, so a stand-in
 * `verapdf` on the PATH echoes its arguments and exits with a status of the test's choosing. Checked:
 * the flavour read from the PDF's XMP (3b; 2b and ua1 where both are claimed, one run each), --flavour
 * winning, the report passed through as is, the status passed back, and the plain message where
 * veraPDF is not installed.
 */
import { spawnSync } from 'node:child_process';
import { chmod, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { PDFDocument, PDFName } from '@cantoo/pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { xmpPacket } from '../src/engine/document/xmp.js';
import { removeTempDirs, tempDir } from './support/files.js';

const script = resolve(import.meta.dirname, '../scripts/validate.mjs');

afterAll(removeTempDirs);

/** A one-page PDF whose catalog carries `xmp`, if any, in a file of its own. */
async function pdfClaiming(xmp?: string): Promise<string> {
  const document = await PDFDocument.create();
  document.addPage([100, 100]);
  if (xmp !== undefined)
    document.catalog.set(
      PDFName.of('Metadata'),
      document.context.register(document.context.flateStream(xmp, { Type: 'Metadata', Subtype: 'XML' })),
    );
  const file = join(await tempDir(), 'document.pdf');
  await writeFile(file, await document.save());
  return file;
}

/** A folder holding a `verapdf` that prints its arguments and exits with `status`. */
async function standIn(status: number): Promise<string> {
  const folder = await tempDir();
  const path = join(folder, 'verapdf');
  await writeFile(path, `#!/bin/sh\necho "veraPDF stand-in: $*"\nexit ${status}\n`);
  await chmod(path, 0o755);
  return folder;
}

const validate = (args: string[], env: NodeJS.ProcessEnv) => {
  const run = spawnSync(process.execPath, [script, ...args], {
    encoding: 'utf8',
    env: { PATH: '/usr/bin:/bin', ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
};

describe('npm run validate', () => {
  it('runs veraPDF with the flavour the XMP claims, shows its report as is and exits with its status', async () => {
    const file = await pdfClaiming(xmpPacket({ pdfa: { part: 3, conformance: 'B' } }));
    const run = validate([file], { PATH: `${await standIn(1)}:/usr/bin:/bin` });
    expect(run.stdout).toBe(`veraPDF stand-in: --flavour 3b ${file}\n`);
    expect(run.status).toBe(1);
  });

  it('runs once per claim where the PDF claims PDF/A and PDF/UA', async () => {
    const file = await pdfClaiming(xmpPacket({ pdfa: { part: 2, conformance: 'B' }, pdfua: 1 }));
    const run = validate([file], { PATH: `${await standIn(0)}:/usr/bin:/bin` });
    expect(run.stdout).toBe(`veraPDF stand-in: --flavour 2b ${file}\nveraPDF stand-in: --flavour ua1 ${file}\n`);
    expect(run.status).toBe(0);
  });

  it('takes --flavour over the claim, and VERAPDF over the PATH', async () => {
    const file = await pdfClaiming(xmpPacket({ pdfa: { part: 3, conformance: 'B' } }));
    const run = validate([file, '--flavour', 'ua1'], { VERAPDF: join(await standIn(0), 'verapdf') });
    expect(run.stdout).toBe(`veraPDF stand-in: --flavour ua1 ${file}\n`);
    expect(run.status).toBe(0);
  });

  it('says so where the PDF claims nothing and no --flavour is given', async () => {
    const file = await pdfClaiming();
    const run = validate([file], { PATH: `${await standIn(0)}:/usr/bin:/bin` });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('claims no PDF/A or PDF/UA conformance in its XMP metadata; give one with --flavour');
  });

  it('says plainly that veraPDF is not installed, and how to install it, and exits non-zero', async () => {
    const file = await pdfClaiming(xmpPacket({ pdfa: { part: 3, conformance: 'B' } }));
    const run = validate([file], {});
    expect(run.status).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('veraPDF is not installed (no verapdf on the PATH, and VERAPDF is not set)');
    expect(run.stderr).toContain('https://verapdf.org/software/');
  });
});
