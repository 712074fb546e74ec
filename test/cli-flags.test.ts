/**
 * `pdfrender render` flags and output modes not covered by cli.test.ts, with real Chromium: paper
 * formats, margins, scale and backgrounds read back from the PDF, --quiet and --json, run in-process
 * on warm engines (support/cli-in-process.ts); `pdfrender setup` and the progress spinner on real
 * terminals through the built bin in a child process.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hasScript, pdfrender, ptyRun } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { pt, readPaint, readPdf } from './support/pdf.js';

const cli = inProcessCli();

afterAll(async () => {
  await cli.close();
  await removeTempDirs();
});

async function pdfAt(path: string) {
  return readPdf(await readFile(path));
}

/** Render `html` with `flags` to out.pdf in a fresh folder and read it back; the run must succeed. */
async function renderWith(html: string, flags: string[]) {
  const dir = await folderWith({ 'page.html': html });
  const run = await cli.run(['render', 'page.html', '-o', 'out.pdf', ...flags], { cwd: dir });
  expect(run.stderr).not.toContain('pdfrender:');
  expect(run.code).toBe(0);
  const path = join(dir, 'out.pdf');
  return { pdf: await pdfAt(path), bytes: await readFile(path) };
}

const plain = '<body style="margin:0"><p style="margin:0;font-size:16px">Top line</p></body>';

describe('paper size flags', () => {
  // Chromium prints metric sizes rounded through whole CSS pixels, so A4 is 595.92 x 841.92
  // rather than the nominal 595.28 x 841.89; the nominal size is checked to within a point.
  it.each([
    ['A4', 595.92, 841.92, [210 * pt.mm, 297 * pt.mm]],
    ['A3', 841.92, 1191.12, [297 * pt.mm, 420 * pt.mm]],
    ['A5', 420, 595.92, [148 * pt.mm, 210 * pt.mm]],
    ['Letter', 612, 792, [8.5 * pt.in, 11 * pt.in]],
    ['Legal', 612, 1008, [8.5 * pt.in, 14 * pt.in]],
    ['Tabloid', 792, 1224, [11 * pt.in, 17 * pt.in]],
  ] as const)('--format %s prints %d x %d points', async (format, width, height, nominal) => {
    const { pdf } = await renderWith(plain, ['--format', format]);
    expect(pdf.pages).toHaveLength(1);
    expect(pdf.pages[0]!.width).toBeCloseTo(width, 1);
    expect(pdf.pages[0]!.height).toBeCloseTo(height, 1);
    expect(Math.abs(pdf.pages[0]!.width - nominal[0])).toBeLessThan(1);
    expect(Math.abs(pdf.pages[0]!.height - nominal[1])).toBeLessThan(1);
    expect(pdf.pages[0]!.text).toBe('Top line');
  });

  it('accepts a format name in any case', async () => {
    const { pdf } = await renderWith(plain, ['--format', 'a4']);
    expect(pdf.pages[0]).toMatchObject({ width: expect.closeTo(595.92, 1), height: expect.closeTo(841.92, 1) });
  });

  it('swaps the format with --landscape', async () => {
    const { pdf } = await renderWith(plain, ['--format', 'A4', '--landscape']);
    expect(pdf.pages[0]!.width).toBeCloseTo(841.92, 1);
    expect(pdf.pages[0]!.height).toBeCloseTo(595.92, 1);
  });

  it('lets --paper-width override the width of --format, keeping its height', async () => {
    const { pdf } = await renderWith(plain, ['--format', 'A4', '--paper-width', '5in']);
    expect(pdf.pages[0]!.width).toBe(360);
    expect(pdf.pages[0]!.height).toBeCloseTo(841.92, 1);
  });
});

describe('margins, scale and backgrounds', () => {
  it('sets all margins with --margin, and --margin-top overrides the top one', async () => {
    const { pdf: even } = await renderWith(plain, ['--format', 'Letter', '--margin', '1in']);
    const { pdf: tall } = await renderWith(plain, ['--format', 'Letter', '--margin', '1in', '--margin-top', '2in']);
    const first = even.pages[0]!.items[0]!;
    const moved = tall.pages[0]!.items[0]!;
    expect(first.text).toBe('Top line');
    // The left margin is the --margin one in both; the first baseline sits exactly 1in lower.
    expect(first.x).toBeCloseTo(72, 0);
    expect(moved.x).toBeCloseTo(72, 0);
    expect(first.y - moved.y).toBeCloseTo(72, 0);
    // The baseline is one line (12 pt text) below the top margin.
    expect(792 - 72 - first.y).toBeGreaterThan(8);
    expect(792 - 72 - first.y).toBeLessThan(18);
  });

  it('keeps the --margin bottom and sides when only --margin-top is given', async () => {
    // 40 lines of 18 pt (720 pt): with a 0.5in top and 1in bottom margin (684 pt of room) they need
    // two pages; a bottom margin lost to the override (756 pt of room) would let them fit on one.
    const lines = Array.from(
      { length: 40 },
      (_, i) => `<p style="margin:0;font-size:24px;line-height:24px">Line ${i + 1}</p>`,
    ).join('');
    const { pdf } = await renderWith(`<body style="margin:0">${lines}</body>`, [
      '--format',
      'Letter',
      '--margin',
      '1in',
      '--margin-top',
      '0.5in',
    ]);
    expect(pdf.pages).toHaveLength(2);
    const lastOnFirst = pdf.pages[0]!.items.at(-1)!;
    // Nothing is printed in the 1in bottom margin.
    expect(lastOnFirst.y).toBeGreaterThan(72);
    expect(pdf.pages[0]!.items.every((item) => item.x >= 71)).toBe(true);
  });

  it('prints smaller with --scale 0.5: half the font size and fewer pages for a long document', async () => {
    const lines = Array.from({ length: 150 }, (_, i) => `<p style="font-size:16px">Paragraph ${i + 1}</p>`).join('');
    const { pdf: full } = await renderWith(lines, ['--format', 'Letter']);
    const { pdf: half } = await renderWith(lines, ['--format', 'Letter', '--scale', '0.5']);
    expect(full.pages[0]!.items[0]!.fontSize).toBeCloseTo(12, 0);
    expect(half.pages[0]!.items[0]!.fontSize).toBeCloseTo(6, 0);
    expect(full.pages.length).toBeGreaterThanOrEqual(4);
    expect(half.pages.length).toBeLessThanOrEqual(Math.ceil(full.pages.length / 2) + 1);
    expect(half.pages.map((p) => p.text).join(' ')).toContain('Paragraph 150');
  });

  it('paints CSS backgrounds only with --print-background', async () => {
    const colored = '<body style="background:#ff0000"><p>Red page</p></body>';
    const without = await renderWith(colored, []);
    const withBackground = await renderWith(colored, ['--print-background']);
    expect((await readPaint(without.bytes)).fillColors.has('#ff0000')).toBe(false);
    expect((await readPaint(withBackground.bytes)).fillColors.has('#ff0000')).toBe(true);
    expect(withBackground.pdf.pages[0]!.text).toBe('Red page');
  });
});

describe('output modes', () => {
  it('--quiet prints nothing for a success, and still the error line for a failure', async () => {
    const dir = await folderWith({ 'a.html': '<p>quiet</p>', 'two.html': '<p style="break-after:page">1</p><p>2</p>' });
    const ok = await cli.run(['render', 'a.html', '--quiet'], { cwd: dir });
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout.length).toBe(0);
    expect((await pdfAt(join(dir, 'a.pdf'))).pages[0]!.text).toBe('quiet');

    const failing = await cli.run(['render', 'a.html', 'two.html', '-q', '--max-pages', '1'], { cwd: dir });
    expect(failing.code).toBe(1);
    expect(failing.stdout.length).toBe(0);
    expect(failing.stderr).toBe('✖ two.html: the document has more pages than the limit of 1 (--max-pages)\n');
  });

  it('--json lists a failed document with its error, time and exit code, beside the rendered one', async () => {
    const dir = await folderWith({ 'a.html': '<p>fine</p>', 'two.html': '<p style="break-after:page">1</p><p>2</p>' });
    const run = await cli.run(['render', 'two.html', 'a.html', '--json', '--max-pages', '1'], { cwd: dir });
    expect(run.code).toBe(1);
    // Errors go to stderr in every mode; stdout holds the JSON alone.
    expect(run.stderr).toBe('✖ two.html: the document has more pages than the limit of 1 (--max-pages)\n');
    const summary = JSON.parse(run.stdout.toString());
    expect(summary).toMatchObject({ rendered: 1, failed: 1, ms: expect.any(Number) });
    const [failed, rendered] = summary.documents;
    expect(failed).toEqual({
      input: 'two.html',
      output: null,
      ms: expect.any(Number),
      error: 'the document has more pages than the limit of 1 (--max-pages)',
      errorCode: 'RENDER_PDF_FAILED',
      warnings: [],
      // The process exit code this document alone would give: 1 failed to render, 2 invalid.
      exitCode: 1,
    });
    expect(Number.isInteger(failed.ms)).toBe(true);
    expect(rendered).toMatchObject({ input: 'a.html', output: join(dir, 'a.pdf'), pages: 1, exitCode: 0 });
    expect(rendered.error).toBeUndefined();
    expect(existsSync(join(dir, 'two.pdf'))).toBe(false);
  });

  // A shorthand sets four fields; its one bad value is one line naming the shorthand.
  it('names --margin once for a bad --margin value', async () => {
    const dir = await folderWith({ 'a.html': '<p>a</p>' });
    const bad = await cli.run(['render', 'a.html', '--margin', '1furlong'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'pdfrender: --margin: unknown unit "furlong" in "1furlong"; use one of in, pt, px, mm, cm, pc\n',
    );
    const overridden = await cli.run(['render', 'a.html', '--margin', '1furlong', '--margin-top', '1in'], { cwd: dir });
    expect(overridden.code).toBe(2);
    expect(overridden.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(dir, 'a.pdf'))).toBe(false);
  });
});

describe('pdfrender setup', () => {
  it('checks the browser given by --chrome and exits 0', async () => {
    const run = await pdfrender(['setup', '--chrome', '/usr/bin/chromium']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^browser: \/usr\/bin\/chromium \(found by --chrome\)\n/);
    // As root, setup makes the user Chromium runs as, so that its sandbox can be on.
    if (process.getuid?.() === 0)
      expect(run.stderr).toMatch(
        /\nbrowser user: pdfrender \(a root pdfrender runs Chromium as this user, with its sandbox on\)\n/,
      );
    // Then what fontconfig covers (installing what is missing needs root and apt-get).
    expect(run.stderr).toMatch(/\nfonts: (every script covered|these will render as empty boxes)[^\n]*\n$/);
  });

  it('exits 2 with the fix when --chrome names no browser', async () => {
    const run = await pdfrender(['setup', '--chrome', '/nonexistent/chrome']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /^pdfrender: the browser given by --chrome \(\/nonexistent\/chrome\) does not exist or is not executable; install one with `npx pdfrender setup`/,
    );
  });
  // "No browser anywhere" is not tested: the finder always tries /usr/bin/chromium and the other
  // system paths, and no flag or variable turns them off (and setup as root would apt-get install).
});

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('renders with plain lines, not the spinner, but in colour, when the terminal reports zero columns', async () => {
    const dir = await folderWith({ 'a.html': '<p>zero columns</p>' });
    const run = await ptyRun(['render', 'a.html'], { cwd: dir, columns: 0, timeoutMs: 40_000 });
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(0);
    expect(run.output).not.toContain('Rendering 0/1');
    expect(run.output).toMatch(/✔.*a\.html → .*a\.pdf/);
    // Still a terminal: its width unknown stops the spinner, not the colour.
    expect(run.output).toContain('\u001b[32m✔');
    expect((await pdfAt(join(dir, 'a.pdf'))).pages[0]!.text).toBe('zero columns');
  });

  it('shows the spinner on an 80-column terminal and finishes', async () => {
    const dir = await folderWith({ 'a.html': '<p>eighty columns</p>', 'b.html': '<p>second</p>' });
    const run = await ptyRun(['render', 'a.html', 'b.html'], { cwd: dir, columns: 80, timeoutMs: 40_000 });
    expect(run.timedOut).toBe(false);
    expect(run.code).toBe(0);
    expect(run.output).toContain('Rendering 0/2');
    expect(run.output).toContain('2 of 2 PDFs rendered');
    expect((await pdfAt(join(dir, 'a.pdf'))).pages[0]!.text).toBe('eighty columns');
    expect((await pdfAt(join(dir, 'b.pdf'))).pages[0]!.text).toBe('second');
  });
});
