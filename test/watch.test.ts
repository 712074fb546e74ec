/**
 * `pdfrender render --watch` as a user runs it: a real process, real files edited on disk, the PDF
 * read after each change. Waits are on the PDF's text and the process's own lines, never on time.
 */
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { watchAndRender } from '../src/cli/render/watch.js';
import { bin, pdfrender } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf, readingOrder } from './support/pdf.js';
import { until } from './support/wait.js';

afterAll(removeTempDirs);

describe('render --watch', () => {
  it('renders again when the input, a style sheet it loads or the header file changes, and for nothing else', async () => {
    const dir = await tempDir();
    const page = (version: string) => `<link rel="stylesheet" href="style.css"><p>Version ${version}</p>`;
    await writeFile(join(dir, 'page.html'), page('one'));
    await writeFile(join(dir, 'style.css'), 'p::after { content: " plain" }');
    await writeFile(
      join(dir, 'header.html'),
      '<link rel="stylesheet" href="header.css"><div class="head" style="font-size: 10px">Header A</div>',
    );
    await writeFile(join(dir, 'header.css'), '.head::after { content: " alpha" }');
    const child = spawn(
      process.execPath,
      [bin, 'render', 'page.html', '--header', 'header.html', '--margin-top', '1in', '--watch', '--debug'],
      {
        cwd: dir,
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const text = async () => {
      const [first] = (await readPdf(await readFile(join(dir, 'page.pdf')))).pages;
      return first ? readingOrder(first) : '';
    };
    const pdfSays = (expected: string) =>
      until(async () => (await text().catch(() => '')) === expected, `the PDF to read "${expected}"`);
    try {
      await until(
        () => stderr.includes('watching 4 files'),
        "the watch to start (the input, the header, the header's and the page's style sheets)",
      );
      expect(await text()).toBe('Header A alpha Version one plain');

      await writeFile(join(dir, 'page.html'), page('two'));
      await pdfSays('Header A alpha Version two plain');
      await writeFile(join(dir, 'style.css'), 'p::after { content: " styled" }');
      await pdfSays('Header A alpha Version two styled');
      await writeFile(join(dir, 'header.css'), '.head::after { content: " omega" }');
      await pdfSays('Header A omega Version two styled');
      await writeFile(join(dir, 'header.html'), '<div style="font-size: 10px">Header B</div>');
      await pdfSays('Header B Version two styled');

      // A file the document does not load (a log written beside it, say) is seen and does not count.
      await writeFile(join(dir, 'notes.txt'), 'not part of the document');
      await until(
        () => stderr.includes(`changed: ${join(dir, 'notes.txt')} (not part of the documents)`),
        'the watch to see notes.txt',
      );
      // A loaded file deleted (a build cleaning it) renders without it, and made again renders with it.
      await rm(join(dir, 'style.css'));
      await pdfSays('Header B Version two');
      await writeFile(join(dir, 'style.css'), 'p::after { content: " rebuilt" }');
      await pdfSays('Header B Version two rebuilt');
      // The input itself removed: the watch says it waits (no failure), and renders it once it is back.
      await rm(join(dir, 'page.html'));
      await until(() => stderr.includes('pdfrender: page.html: input removed, waiting\n'), 'the removal to be noticed');
      expect(stderr).not.toContain('✖');
      await writeFile(join(dir, 'page.html'), page('three'));
      await pdfSays('Header B Version three rebuilt');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  });

  it('renders while a file is still being written without pause, not only once it stops', async () => {
    const file = join(await tempDir(), 'page.html');
    await writeFile(file, '<p>0</p>');
    const stop = new AbortController();
    let rounds = 0;
    let watching = false;
    const watched = watchAndRender({
      files: () => [file],
      ready: () => (watching = true),
      round: async () => void (rounds += 1),
      signal: stop.signal,
    });
    await until(() => watching, 'the watch to start');
    // Writes closer together than the quiet spell that ends a batch, until a round runs (or 20 s pass).
    let writes = 0;
    for (const deadline = Date.now() + 20_000; rounds === 0 && Date.now() < deadline; writes += 1) {
      await writeFile(file, `<p>${writes}</p>`);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    stop.abort();
    await watched;
    expect(rounds).toBeGreaterThan(0);
  });

  it('refuses standard input and standard output, which cannot be rendered again', async () => {
    const run = await pdfrender(['render', '-', '--watch'], { input: '<p>x</p>' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--watch renders files to files');
  });
});
