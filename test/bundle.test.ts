/**
 * The bundled CLI (dist/bundle/, made by `npm run build` with esbuild, a dev dependency, so always
 * there when the tests run): a fresh Node takes its code cache, and bin/pdfrender.js runs it,
 * package.json and all.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';

const root = resolve(import.meta.dirname, '..');
afterAll(removeTempDirs);

describe('the bundled CLI', () => {
  it('is made by the build', () => {
    expect(existsSync(join(root, 'dist/bundle/cli.cjs'))).toBe(true);
  });

  it('has a code cache that a fresh Node takes', () => {
    const launcher = join(root, 'dist/bundle/launcher.cjs');
    const used = execFileSync(
      process.execPath,
      ['-e', `process.stdout.write(String(require(${JSON.stringify(launcher)}).loadBundle().cacheUsed))`],
      {
        encoding: 'utf8',
      },
    );
    expect(used).toBe('true');
  });

  it('fills its code cache by rendering with the bundled CLI, or says why it could not', async () => {
    const { loadBundle } = await import('../dist/cli/bundle-loader.js');
    const { warmCodeCache } = await import('../scripts/warm-code-cache.mjs');
    const { cli } = loadBundle()!;
    expect(await warmCodeCache(cli, process.env)).toBeUndefined();
    expect(await warmCodeCache(cli, { ...process.env, PDFRENDER_CHROME: '/no/such/chromium' })).toMatch(
      /^pdfrender: the browser given by PDFRENDER_CHROME \(\/no\/such\/chromium\) does not exist/,
    );
  });

  it("is what bin/pdfrender.js runs: its version is package.json's, and it renders", async () => {
    const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
    expect((await pdfrender(['--version'])).stdout.toString().trim()).toBe(version);
    const folder = await folderWith({ 'page.html': '<p>from the bundle</p>' });
    const run = await pdfrender(['render', join(folder, 'page.html'), '-o', join(folder, 'page.pdf')]);
    expect(run.code).toBe(0);
    expect((await readPdf(await readFile(join(folder, 'page.pdf')))).pages[0]!.text).toContain('from the bundle');
  });
});
