/**
 * A template folder as template authors lay it out (issue 29 §1, §5): `templates/` holds the header,
 * the footer, their style sheet, logo and web font; invoices are rendered from another folder. The
 * templates find their files beside them, --assets-dir (the library's `files.folders`, renderFile's
 * `assetFolders`) opens more folders, and `../` and symbolic links out of each folder stay refused.
 * Real Chromium; the PDF's images, fonts and colours are read back.
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { renderFile } from '../src/engine/render-file.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPaint, readPdf, readTextFonts } from './support/pdf.js';

const layout = resolve(import.meta.dirname, '../fixtures/template-folder');
const cli = inProcessCli();
let engine: Engine | undefined;

afterAll(async () => {
  await cli.close();
  await engine?.close();
  await removeTempDirs();
});

/** A copy of the layout in a temp folder, with `private/secret.png` beside it (outside every folder a render may read). */
async function copyLayout(): Promise<string> {
  const dir = await tempDir();
  await cp(layout, dir, { recursive: true });
  await mkdir(join(dir, 'private'));
  await cp(join(layout, 'templates/logo.png'), join(dir, 'private/secret.png'));
  return dir;
}

const templateFlags = [
  '--header',
  'templates/header.html',
  '--footer',
  'templates/footer.html',
  '--margin-top',
  '1in',
  '--margin-bottom',
  '1in',
];

const fileUrl = (dir: string, path: string) => pathToFileURL(join(dir, path)).href;

/** The images of a PDF file, by poppler's `pdfimages -list`: the page each is on and its size in pixels. */
function readImages(path: string): Array<{ page: number; width: number; height: number }> {
  const lines = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
  return lines.map((line) => {
    const [page, , , width, height] = line.trim().split(/\s+/).map(Number);
    return { page: page!, width: width!, height: height! };
  });
}

/** What the PDF at `path` shows of the layout: its images, the font of each piece of text, whether the brand colour is painted. */
async function shown(path: string) {
  const pdf = await readFile(path);
  const fonts = await readTextFonts(pdf);
  const fontOf = (text: string) => fonts.find((item) => item.text.includes(text))?.font;
  return {
    images: readImages(path),
    header: fontOf('ACME Invoicing'),
    footer: fontOf('Page'),
    heading: fontOf('Invoice 2026-001'),
    brandColour: (await readPaint(pdf)).fillColors.has('#b00020'),
  };
}

/** The logo as the header prints it: the one image of the one-page invoice, 120x40 pixels (the document itself has none). */
function expectLogo(images: ReturnType<typeof readImages>) {
  expect(images).toEqual([{ page: 1, width: 120, height: 40 }]);
}

describe('header and footer files in a folder of their own', () => {
  it('find their logo, style sheet and web font beside them, not beside the document', async () => {
    const dir = await copyLayout();
    const run = await cli.run(['render', 'invoices/invoice.html', ...templateFlags, '-o', 'invoice.pdf', '--json'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    const entry = JSON.parse(run.stdout.toString()).documents[0];
    // The templates' folder is theirs: the invoice's own link into it is still refused (no --assets-dir).
    expect(entry.blocked).toEqual([
      {
        url: fileUrl(dir, 'templates/styles.css'),
        code: 'FILE_NOT_ALLOWED',
        reason: "file: URLs outside the document's folder are not allowed",
      },
    ]);
    expect(entry.failed).toEqual([]);
    expect(entry.warnings).toEqual([]);
    const pdf = await shown(join(dir, 'invoice.pdf'));
    expectLogo(pdf.images);
    expect(pdf).toMatchObject({ header: 'DejaVuSerif', footer: 'DejaVuSerif', brandColour: true });
    expect(pdf.heading).not.toBe('DejaVuSerif');
  });

  it("refuse ../ and a symbolic link out of the header's folder", async () => {
    const dir = await copyLayout();
    await symlink(join(dir, 'private/secret.png'), join(dir, 'templates/link.png'));
    await writeFile(
      join(dir, 'templates/escape.html'),
      '<div><img src="../private/secret.png"><img src="link.png"> Escaping header</div>',
    );
    const run = await cli.run(
      ['render', 'invoices/invoice.html', '--header', 'templates/escape.html', '-o', 'out.pdf', '--json'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const { blocked } = JSON.parse(run.stdout.toString()).documents[0];
    const reason = "file: URLs outside the document's folder and the header and footer files' folders are not allowed";
    expect(blocked).toEqual(
      expect.arrayContaining([
        { url: fileUrl(dir, 'private/secret.png'), code: 'FILE_NOT_ALLOWED', reason },
        { url: fileUrl(dir, 'templates/link.png'), code: 'FILE_NOT_ALLOWED', reason },
      ]),
    );
    expect(readImages(join(dir, 'out.pdf'))).toEqual([]);
  });
});

describe('--assets-dir', () => {
  it('opens a folder to the document as its own: the invoice loads the shared style sheet and its font', async () => {
    const dir = await copyLayout();
    const run = await cli.run(
      ['render', 'invoices/invoice.html', ...templateFlags, '--assets-dir', 'templates', '-o', 'invoice.pdf', '--json'],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const entry = JSON.parse(run.stdout.toString()).documents[0];
    expect(entry).toMatchObject({ blocked: [], failed: [], warnings: [] });
    const pdf = await shown(join(dir, 'invoice.pdf'));
    expectLogo(pdf.images);
    expect(pdf).toMatchObject({ header: 'DejaVuSerif', footer: 'DejaVuSerif', heading: 'DejaVuSerif' });
  });

  it('refuses ../ and symbolic links out of each asset folder, and names a folder that is not there', async () => {
    const dir = await copyLayout();
    await mkdir(join(dir, 'more'));
    await symlink(join(dir, 'private/secret.png'), join(dir, 'templates/link.png'));
    await symlink(join(dir, 'private'), join(dir, 'more/private-folder'));
    await writeFile(
      join(dir, 'invoices/escape.html'),
      [
        '<img src="../templates/logo.png">',
        '<img src="../templates/link.png">',
        '<img src="../more/private-folder/secret.png">',
        '<img src="../templates/../private/secret.png">',
      ].join(''),
    );
    const run = await cli.run(
      [
        'render',
        'invoices/escape.html',
        '--assets-dir',
        'templates',
        '--assets-dir',
        'more',
        '-o',
        'out.pdf',
        '--json',
      ],
      { cwd: dir },
    );
    expect(run.code).toBe(0);
    const { blocked } = JSON.parse(run.stdout.toString()).documents[0];
    const reason = "file: URLs outside the document's folder and the asset folders are not allowed";
    expect(blocked).toEqual(
      expect.arrayContaining(
        ['templates/link.png', 'more/private-folder/secret.png', 'private/secret.png'].map((path) => ({
          url: fileUrl(dir, path),
          code: 'FILE_NOT_ALLOWED',
          reason,
        })),
      ),
    );
    expect(blocked).toHaveLength(3);
    // The logo alone is painted (the refused ones are Chromium's broken-image icons).
    const images = readImages(join(dir, 'out.pdf'));
    expect(images.filter(({ width, height }) => width === 120 && height === 40)).toHaveLength(1);

    const missing = await cli.run(['render', 'invoices/invoice.html', '--assets-dir', 'nowhere'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--assets-dir: cannot use nowhere: ENOENT');
  });
});

describe('the library', () => {
  it('renderFile renders a file with its folder, its templates and asset folders readable, on an engine that blocks file: URLs', async () => {
    const dir = await copyLayout();
    engine = createEngine({ executablePath, concurrency: 1, timeoutMs: 20_000 });
    // The engine's default: every file: URL is refused (documents may come from others), even with a file: base.
    const blocked = await engine.render(parseRenderRequest({ htmlContent: `<img src="templates/logo.png">` }), {
      baseUrl: pathToFileURL(`${dir}/`).href,
    });
    expect(blocked.network.blocked).toEqual([
      { url: fileUrl(dir, 'templates/logo.png'), code: 'FILE_NOT_ALLOWED', reason: 'file: URLs are not allowed' },
    ]);
    const result = await renderFile(
      engine,
      join(dir, 'invoices/invoice.html'),
      { marginTop: '1in', marginBottom: '1in' },
      {
        header: join(dir, 'templates/header.html'),
        footer: join(dir, 'templates/footer.html'),
        assetFolders: [join(dir, 'templates')],
      },
    );
    expect(result.network).toEqual({ blocked: [], failed: [] });
    await writeFile(join(dir, 'library.pdf'), result.pdf);
    const pdf = await shown(join(dir, 'library.pdf'));
    expectLogo(pdf.images);
    expect(pdf).toMatchObject({ header: 'DejaVuSerif', footer: 'DejaVuSerif', heading: 'DejaVuSerif' });
    // Without the asset folder, the invoice's link out of its folder is refused, as on the CLI.
    const own = await renderFile(engine, join(dir, 'invoices/invoice.html'));
    expect(own.network.blocked.map((issue) => issue.url)).toEqual([fileUrl(dir, 'templates/styles.css')]);
    await expect(renderFile(engine, join(dir, 'invoices/none.html'))).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: { file: [expect.stringContaining('ENOENT')] },
    });
  });
});

describe("the README's five-minute recipe (issue 29)", () => {
  it('renders the long invoice from the template folder: logo and page numbers on every page, the table header repeated, every script drawn', async () => {
    const dir = await copyLayout();
    // The command as the README gives it, run from the template folder.
    const readme = await readFile(resolve(import.meta.dirname, '../README.md'), 'utf8');
    const command = /^pdfrender (render invoices\/invoice-long\.html .*)$/m.exec(readme)?.[1];
    expect(command).toBeDefined();
    const run = await cli.run([...command!.split(/\s+/), '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const { report } = JSON.parse(run.stdout.toString()).documents[0];
    expect(report.missingGlyphs).toEqual([]);
    expect(report.resources).toEqual({ blocked: [], failed: [], brokenImages: [] });
    const pdf = await readFile(join(dir, 'invoice-long.pdf'));
    const { pages } = await readPdf(pdf);
    expect(pages.length).toBe(2);
    pages.forEach((page, index) => {
      expect(page.text).toContain('ACME Invoicing');
      expect(page.text).toContain(`Page ${index + 1} of 2`);
      // The table's header row, printed again at the top of every page the table runs onto.
      expect(page.text).toContain('Amount (EUR)');
    });
    expect(readImages(join(dir, 'invoice-long.pdf'))).toEqual([
      { page: 1, width: 120, height: 40 },
      { page: 2, width: 120, height: 40 },
    ]);
    // The customer's name in four scripts, checked from the fonts the PDF draws with.
    expect(report.fonts.used).toEqual(
      expect.arrayContaining([expect.stringMatching(/CJK/), expect.stringMatching(/Devanagari/)]),
    );
    const fonts = await readTextFonts(pdf);
    expect(fonts.find((item) => item.text.includes('Invoice 2026-002'))?.font).toBe('DejaVuSerif');
  });
});
