/**
 * `pdfrender render` as users run it, with real files and real Chromium: what only a process shows
 * (exit codes, standard input and output piped, the bundled bin) through the built bin in a child
 * process; what the flags do through runCli in-process, on warm engines (support/cli-in-process.ts).
 */
import { cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { inProcessCli } from './support/cli-in-process.js';
import { folderWith, redPng, removeTempDirs, tempDir } from './support/files.js';
import { pt, readPaint, readPdf } from './support/pdf.js';
import { renderReportSchema } from '../src/engine/report/report-schema.js';

const fixtures = resolve(import.meta.dirname, '../fixtures');

const cli = inProcessCli();

afterAll(async () => {
  await cli.close();
  await removeTempDirs();
});

async function pdfAt(path: string) {
  return readPdf(await readFile(path));
}

describe('pdfrender render', () => {
  it('renders the sample invoice beside its input, with header, footer and relative resources', async () => {
    const dir = await tempDir();
    await cp(join(fixtures, 'invoice'), dir, { recursive: true });
    const run = await pdfrender(
      [
        'render',
        'invoice.html',
        '--header',
        'header.html',
        '--footer',
        'footer.html',
        '--margin-top',
        '0.8in',
        '--margin-bottom',
        '0.8in',
      ],
      { cwd: dir },
    );
    expect(run.stderr).toMatch(/✔ invoice\.html → .*invoice\.pdf \(2 pages/);
    expect(run.code).toBe(0);
    const pdf = await pdfAt(join(dir, 'invoice.pdf'));
    expect(pdf.pages).toHaveLength(2);
    expect(pdf.pages[0]).toMatchObject({ width: 612, height: 792 });
    pdf.pages.forEach((page, i) => {
      expect(page.text).toContain('Invoice INV-2026-0042');
      expect(page.text).toContain(`Page ${i + 1} of 2`);
    });
    expect(pdf.pages[1]!.text).toContain('Total due');
  });

  it('renders many inputs into --out-dir concurrently and prints a JSON summary', async () => {
    const files = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`doc${i}.html`, `<h1>Document ${i}</h1>`]));
    const dir = await folderWith(files);
    const run = await cli.run(
      ['render', ...Object.keys(files), '--out-dir', 'out', '--concurrency', '2', '--format', 'A5', '--json'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.toString());
    expect(summary).toMatchObject({ rendered: 6, failed: 0 });
    expect(summary.documents).toHaveLength(6);
    for (let i = 0; i < 6; i += 1) {
      const entry = summary.documents[i];
      expect(entry).toMatchObject({ input: `doc${i}.html`, output: join(dir, 'out', `doc${i}.pdf`), pages: 1 });
      expect(entry.bytes).toBeGreaterThan(500);
      const pdf = await pdfAt(entry.output);
      expect(pdf.pages[0]!.text).toBe(`Document ${i}`);
      expect(pdf.pages[0]!.width).toBeCloseTo(148 * pt.mm, -1);
    }
  });

  it('reads standard input and writes the PDF to standard output', async () => {
    const run = await pdfrender(
      ['render', '-', '-o', '-', '--paper-width', '50mm', '--paper-height', '100mm', '--landscape'],
      { input: '<p>From stdin</p>' },
    );
    expect(run.code).toBe(0);
    expect(run.stdout.subarray(0, 5).toString()).toBe('%PDF-');
    const pdf = await readPdf(run.stdout);
    expect(pdf.pages[0]!.text).toBe('From stdin');
    expect(pdf.pages[0]!.width).toBeCloseTo(100 * pt.mm, -1);
    expect(pdf.pages[0]!.width).toBeGreaterThan(pdf.pages[0]!.height);
  });

  it('replays an HTTP API request body with --request, flags overriding its fields', async () => {
    const body = {
      htmlContent: '<p>From the request</p>',
      paperWidth: '210mm',
      paperHeight: '297mm',
      footerHtmlContent: '<span>Request footer</span>',
      marginBottom: '1in',
    };
    const dir = await folderWith({ 'body.json': JSON.stringify(body) });
    const plain = await cli.run(['render', '--request', 'body.json'], { cwd: dir });
    expect(plain.code).toBe(0);
    const pdf = await pdfAt(join(dir, 'body.pdf'));
    expect(pdf.pages[0]!.text).toContain('From the request');
    expect(pdf.pages[0]!.text).toContain('Request footer');
    expect(pdf.pages[0]!.width).toBeCloseTo(210 * pt.mm, -1);

    const overridden = await cli.run(['render', '--request', 'body.json', '--paper-width', '4in', '-o', 'narrow.pdf'], {
      cwd: dir,
    });
    expect(overridden.code).toBe(0);
    expect((await pdfAt(join(dir, 'narrow.pdf'))).pages[0]!.width).toBe(4 * pt.in);
  });

  it('applies --request fields to input files, whose content replaces htmlContent', async () => {
    const dir = await folderWith({
      'opts.json': JSON.stringify({ htmlContent: '<p>ignored</p>', landscape: 'true' }),
      'page.html': '<p>The input file</p>',
    });
    const run = await cli.run(['render', 'page.html', '--request', 'opts.json'], { cwd: dir });
    expect(run.code).toBe(0);
    const pdf = await pdfAt(join(dir, 'page.pdf'));
    expect(pdf.pages[0]).toMatchObject({ width: 792, height: 612, text: 'The input file' });
  });
});

describe('errors and exit codes', () => {
  it('exits 2 naming every bad flag, and writes nothing', async () => {
    const dir = await folderWith({ 'a.html': '<p>a</p>' });
    const run = await pdfrender(
      ['render', 'a.html', '--scale', '5', '--paper-width', '12 furlongs', '--margin', '-1cm'],
      { cwd: dir },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--scale: must be between 0.1 and 2 (got 5)');
    expect(run.stderr).toContain('--paper-width: unknown unit "furlongs" in "12 furlongs"');
    expect(run.stderr).toContain('--margin: must not be negative');
    expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(await readdir(dir)).toEqual(['a.html']);
  });

  it('exits 2 for bad fields in the --request file, naming the file', async () => {
    const dir = await folderWith({
      'bad.json': JSON.stringify({ htmlContent: '<p>x</p>', scale: 'abc', landscape: 'maybe' }),
      'broken.json': '{"htmlContent":',
    });
    const bad = await cli.run(['render', '--request', 'bad.json'], { cwd: dir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('scale in bad.json: must be a number (got "abc")');
    expect(bad.stderr).toContain('landscape in bad.json: must be true or false (or 1/0, on/off, yes/no); got "maybe"');
    const broken = await cli.run(['render', '--request', 'broken.json'], { cwd: dir });
    expect(broken.code).toBe(2);
    expect(broken.stderr).toMatch(/broken\.json is not valid JSON/);
  });

  it.each([
    [['render'], /no input/],
    [['render', 'missing.html'], /input not found: missing\.html/],
    [['render', 'a.html', 'b.html', '-o', 'x.pdf'], /-o\/--output names one file, but 2 inputs/],
    [
      ['render', 'a.html', '--format', 'B7'],
      /--format: must be one of Letter, Legal, Tabloid, A3, A4, A5 \(got "B7"\)/,
    ],
    [['render', 'a.html', '--concurrency', '0'], /--concurrency: must be between 1 and 64 \(got 0\)/],
    [['render', 'a.html', '--bogus'], /unknown option '--bogus'/],
  ])('exits 2 for usage errors: %j', async (args, message) => {
    const dir = await folderWith({ 'a.html': '<p>a</p>', 'b.html': '<p>b</p>' });
    const run = await cli.run(args, { cwd: dir });
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
  });

  it('exits 2 with the fix when the named browser does not exist', async () => {
    const dir = await folderWith({ 'a.html': '<p>a</p>' });
    for (const [args, env] of [
      [['--chrome', '/nonexistent/chrome'], {}],
      [[], { PDFRENDER_CHROME: '/nonexistent/chrome' }],
    ] as const) {
      const run = await cli.run(['render', 'a.html', ...args], { cwd: dir, env });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/\/nonexistent\/chrome\) does not exist or is not executable.*pdfrender setup/);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(existsSync(join(dir, 'a.pdf'))).toBe(false);
  });

  it('exits 2 once, before rendering, when the browser cannot start', async () => {
    const dir = await folderWith({ 'a.html': '<p>a</p>', 'b.html': '<p>b</p>' });
    const run = await cli.run(['render', 'a.html', 'b.html', '--chrome', '/bin/true'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^pdfrender: could not start the browser at \/bin\/true: .*pdfrender setup/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('exits 1 when a document fails, still writes the others, and leaves no partial file', async () => {
    const dir = await folderWith({
      'good.html': '<p>good</p>',
      'hang.html': '<script>while (true) {}</script>',
      'empty.html': '',
    });
    const run = await cli.run(['render', 'good.html', 'hang.html', '--timeout', '1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/✖ hang\.html: the document did not finish rendering within the 1 s deadline/);
    expect(run.stderr).toMatch(/✔ \[\d\/2\] good\.html/);
    expect(run.stderr).toMatch(/1 of 2 PDFs rendered/);
    expect((await pdfAt(join(dir, 'good.pdf'))).pages[0]!.text).toBe('good');
    expect((await readdir(dir)).sort()).toEqual(['empty.html', 'good.html', 'good.pdf', 'hang.html']);

    const empty = await cli.run(['render', 'empty.html', 'good.html', '-q'], { cwd: dir });
    expect(empty.code).toBe(2);
    expect(empty.stderr.trim()).toBe('✖ empty.html: htmlContent: must not be empty');
  });

  it('exits 1 for a document over --max-pages, naming the limit', async () => {
    const dir = await folderWith({ 'long.html': '<p style="break-after:page">1</p><p>2</p>' });
    const run = await pdfrender(['render', 'long.html', '--max-pages', '1'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('✖ long.html: the document has more pages than the limit of 1 (--max-pages)');
    expect(existsSync(join(dir, 'long.pdf'))).toBe(false);
  });

  it('prints complete help and the version', async () => {
    const help = await pdfrender(['render', '--help']);
    expect(help.code).toBe(0);
    for (const flag of [
      '--output',
      '--out-dir',
      '--request',
      '--header',
      '--footer',
      '--landscape',
      '--paper-width',
      '--paper-height',
      '--margin ',
      '--margin-top',
      '--margin-left',
      '--margin-right',
      '--margin-bottom',
      '--format',
      '--print-background',
      '--scale',
      '--tagged',
      '--outline',
      '--concurrency',
      '--timeout',
      '--max-pages',
      '--chrome',
      '--json',
      '--quiet',
    ]) {
      expect(help.stdout.toString()).toContain(flag);
    }
    const version = await pdfrender(['--version']);
    const pkg = JSON.parse(await readFile(resolve(import.meta.dirname, '../package.json'), 'utf8'));
    expect(version.stdout.toString().trim()).toBe(pkg.version);
  });

  it('overwrites an existing PDF only when the new one is complete', async () => {
    const dir = await folderWith({ 'doc.html': '<script>while (true) {}</script>' });
    await writeFile(join(dir, 'doc.pdf'), 'previous');
    const run = await cli.run(['render', 'doc.html', '--timeout', '0.5'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(await readFile(join(dir, 'doc.pdf'), 'utf8')).toBe('previous');
  });
});

describe('what a rendered file may load', () => {
  /** A loopback HTTP server counting requests. */
  async function counter() {
    const { createServer } = await import('node:http');
    let hits = 0;
    const server = createServer((_req, res) => {
      hits += 1;
      res
        .writeHead(200, { 'Content-Type': 'image/svg+xml' })
        .end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as import('node:net').AddressInfo;
    return { url: `http://127.0.0.1:${port}/img.svg`, hits: () => hits, close: () => server.close() };
  }

  it("loads files from the document's folder and below, not from outside it", async () => {
    const outside = await folderWith({ 'secret.txt': 'OUTSIDE-SECRET' });
    const dir = await folderWith({ 'inside.txt': 'INSIDE-TEXT' });
    const html = `<iframe src="inside.txt"></iframe><iframe src="file://${join(outside, 'secret.txt')}"></iframe><iframe src="../${outside.split('/').pop()}/secret.txt"></iframe>`;
    await writeFile(join(dir, 'page.html'), html);
    const run = await cli.run(['render', 'page.html', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.toString());
    expect(summary.documents[0].blocked).toEqual([
      {
        url: `file://${join(outside, 'secret.txt')}`,
        code: 'FILE_NOT_ALLOWED',
        reason: "file: URLs outside the document's folder are not allowed",
      },
    ]);
    const text = (await pdfAt(join(dir, 'page.pdf'))).pages[0]!.text;
    expect(text).toContain('INSIDE-TEXT');
    expect(text).not.toContain('OUTSIDE-SECRET');
  });

  it('reports an unexpected failure as the server would (a code, a generic message), with the cause on stderr', async () => {
    // A real fault the checks before rendering do not foresee: a folder name longer than the file
    // system allows, so making it for the PDF fails with an error naming the path.
    const dir = await folderWith({ 'page.html': '<p>cause</p>' });
    const folder = `long-${'x'.repeat(300)}`;
    const run = await cli.run(['render', 'page.html', '-o', `${folder}/out.pdf`, '--json'], { cwd: dir });
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout.toString()).documents[0]).toMatchObject({
      output: null,
      errorCode: 'INTERNAL_ERROR',
      error: 'pdfrender failed unexpectedly; its cause is on standard error',
    });
    expect(run.stdout.toString()).not.toContain(folder);
    // No operator to ask: the CLI's user is told where the cause is, and it is there.
    expect(run.stderr.toString()).not.toContain("operator's log");
    expect(run.stderr.toString()).toMatch(/cause: .*ENAMETOOLONG/);
  });

  it('reaches the network by default, nothing with --block-network, and fails with --fail-on-blocked', async () => {
    const server = await counter();
    try {
      const dir = await folderWith({ 'page.html': `<p>net</p><img src="${server.url}">` });
      expect((await cli.run(['render', 'page.html'], { cwd: dir })).code).toBe(0);
      expect(server.hits()).toBe(1);
      const blocked = await cli.run(['render', 'page.html', '--block-network', '--json'], { cwd: dir });
      expect(blocked.code).toBe(0);
      expect(JSON.parse(blocked.stdout.toString()).documents[0].blocked).toEqual([
        { url: server.url, code: 'NETWORK_BLOCKED', reason: 'network access is blocked (--block-network)' },
      ]);
      const allowed = await cli.run(['render', 'page.html', '--block-network', '--allow-host', '127.0.0.1'], {
        cwd: dir,
      });
      expect(allowed.code).toBe(0);
      expect(server.hits()).toBe(2);
      const strict = await cli.run(['render', 'page.html', '--block-network', '--fail-on-blocked'], { cwd: dir });
      expect(strict.code).toBe(1);
      expect(strict.stderr).toContain('--fail-on-blocked');
      expect(server.hits()).toBe(2);
    } finally {
      server.close();
    }
  });

  it('gives each document its preflight report with --json, and one ! line per kind of problem on stderr, none with --quiet', async () => {
    // Three images Chromium refuses to load (port 1 is an unsafe port), and a blocked one.
    const images = [1, 2, 3].map((n) => `http://127.0.0.1:1/${n}.png`);
    const dir = await folderWith({
      'page.html': `<p>report</p>${images.map((url) => `<img src="${url}">`).join('')}<img src="https://blocked.test/x.png">`,
    });
    const json = await cli.run(['render', 'page.html', '--json', '--block-network', '--allow-host', '127.0.0.1'], {
      cwd: dir,
    });
    expect(json.code).toBe(0);
    const [document] = JSON.parse(json.stdout.toString()).documents;
    const report = renderReportSchema.parse(document.report);
    expect(report.resources.failed.map((issue) => issue.url).sort()).toEqual(images);
    expect(report.resources.blocked).toEqual([
      {
        url: 'https://blocked.test/x.png',
        code: 'NETWORK_BLOCKED',
        reason: 'network access is blocked (--block-network)',
      },
    ]);
    // The summary's own lists are the report's.
    expect({ blocked: document.blocked, failed: document.failed }).toEqual({
      blocked: report.resources.blocked,
      failed: report.resources.failed,
    });

    const normal = await cli.run(['render', 'page.html', '--block-network', '--allow-host', '127.0.0.1'], { cwd: dir });
    expect(normal.code).toBe(0);
    const warnings = normal.stderr.split('\n').filter((line) => line.startsWith('!'));
    expect(warnings).toEqual([
      expect.stringMatching(/^! page\.html: 4 resources did not load: http:\/\/127\.0\.0\.1:1\//),
    ]);
    const quiet = await cli.run(['render', 'page.html', '--quiet', '--block-network', '--allow-host', '127.0.0.1'], {
      cwd: dir,
    });
    expect(quiet.stderr).toBe('');
  });

  it('runs no script with --disable-javascript', async () => {
    const dir = await folderWith({ 'page.html': '<p>static</p><script>document.body.append("SCRIPTED")</script>' });
    expect((await cli.run(['render', 'page.html'], { cwd: dir })).code).toBe(0);
    expect((await pdfAt(join(dir, 'page.pdf'))).pages[0]!.text).toContain('SCRIPTED');
    expect((await cli.run(['render', 'page.html', '--disable-javascript'], { cwd: dir })).code).toBe(0);
    const text = (await pdfAt(join(dir, 'page.pdf'))).pages[0]!.text;
    expect(text).toContain('static');
    expect(text).not.toContain('SCRIPTED');
  });

  it("prints the file's own URL for a header's url class, and inlines header images from the document's folder", async () => {
    const dir = await folderWith({ 'letter.html': '<p>Letter body</p>' });
    await mkdir(join(dir, 'assets'));
    await writeFile(join(dir, 'assets', 'logo.png'), redPng);
    await writeFile(
      join(dir, 'header.html'),
      `<span class="url"></span> <img src="${pathToFileURL(join(dir, 'assets', 'logo.png')).href}" style="height:10px">`,
    );
    // In-process, a relative --header would resolve against the test's folder: the invoice test runs one through the bin.
    const run = await cli.run(
      ['render', 'letter.html', '--header', join(dir, 'header.html'), '--margin-top', '1in', '--json'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.stdout.toString()).documents[0];
    expect(summary.blocked).toEqual([]);
    expect(summary.warnings).toEqual([]);
    const pdf = await readFile(join(dir, 'letter.pdf'));
    const text = (await readPdf(pdf)).pages[0]!.text;
    expect(text).toContain('Letter body');
    expect(text.replace(/\s+/g, '')).toContain(`${pathToFileURL(join(dir, 'letter.html')).href}`);
    expect((await readPaint(pdf)).images).toBe(1);
  });
});
