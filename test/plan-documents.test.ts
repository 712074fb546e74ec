/** Where `pdfrender render` sends each PDF, and which usage mistakes stop it before rendering. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { planDocuments, type PlanInput } from '../src/cli/render/plan-documents.js';
import { PdfRenderError } from '../src/errors.js';
import { folderWith, removeTempDirs } from './support/files.js';

// Real folders under os.tmpdir(), made by mkdtemp in folderWith and removed after every test.
afterEach(removeTempDirs);

const base = { requestHasDocument: false, stdoutIsTTY: false };

/** The message of the USAGE error planDocuments must throw. */
async function usageError(plan: PlanInput): Promise<string> {
  const error = await planDocuments(plan).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(PdfRenderError);
  expect((error as PdfRenderError).code).toBe('USAGE');
  return (error as Error).message;
}

/** A folder's file: URL with the trailing slash relative links need. */
const folderUrl = (path: string) => `${pathToFileURL(path).href}/`;

describe('planDocuments: destinations', () => {
  it('writes a PDF beside its input by default, resolving links against its folder', async () => {
    const cwd = await folderWith({});
    await mkdir(join(cwd, 'docs'));
    await writeFile(join(cwd, 'docs', 'page.html'), '<p>x</p>');
    const documents = await planDocuments({ ...base, cwd, inputs: ['docs/page.html'] });
    expect(documents).toEqual([
      {
        label: 'docs/page.html',
        source: { kind: 'file', path: join(cwd, 'docs', 'page.html') },
        baseUrl: folderUrl(join(cwd, 'docs')),
        destination: { kind: 'file', path: join(cwd, 'docs', 'page.pdf') },
      },
    ]);
  });

  it('accepts an absolute input path and keeps the label as given', async () => {
    const cwd = await folderWith({});
    const elsewhere = await folderWith({ 'report.htm': 'r' });
    const [document] = await planDocuments({ ...base, cwd, inputs: [join(elsewhere, 'report.htm')] });
    expect(document).toMatchObject({
      label: join(elsewhere, 'report.htm'),
      baseUrl: folderUrl(elsewhere),
      destination: { kind: 'file', path: join(elsewhere, 'report.pdf') },
    });
  });

  it('writes several inputs each beside its own file when no flag is given', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    await mkdir(join(cwd, 'sub'));
    await writeFile(join(cwd, 'sub', 'b.html'), 'b');
    const documents = await planDocuments({ ...base, cwd, inputs: ['sub/b.html', 'a.html'] });
    // Order follows the command line.
    expect(documents.map((d) => [d.label, d.destination, d.baseUrl])).toEqual([
      ['sub/b.html', { kind: 'file', path: join(cwd, 'sub', 'b.pdf') }, folderUrl(join(cwd, 'sub'))],
      ['a.html', { kind: 'file', path: join(cwd, 'a.pdf') }, folderUrl(cwd)],
    ]);
  });

  it('writes to -o, resolved against the working directory', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    const [document] = await planDocuments({ ...base, cwd, inputs: ['a.html'], output: 'out/x.pdf' });
    expect(document!.destination).toEqual({ kind: 'file', path: join(cwd, 'out', 'x.pdf') });
    // The links still resolve against the input's folder, not the output's.
    expect(document!.baseUrl).toBe(folderUrl(cwd));
  });

  it('writes to standard output with -o -', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    const [document] = await planDocuments({ ...base, cwd, inputs: ['a.html'], output: '-' });
    expect(document!.destination).toEqual({ kind: 'stdout' });
  });

  it('names each PDF after its input in --out-dir', async () => {
    const cwd = await folderWith({ 'a.html': 'a', 'b.htm': 'b', c: 'c', 'd.tar.html': 'd' });
    const documents = await planDocuments({
      ...base,
      cwd,
      inputs: ['a.html', 'b.htm', 'c', 'd.tar.html'],
      outDir: 'pdfs',
    });
    expect(documents.map((d) => d.destination)).toEqual(
      ['a.pdf', 'b.pdf', 'c.pdf', 'd.tar.pdf'].map((name) => ({ kind: 'file', path: join(cwd, 'pdfs', name) })),
    );
    expect(documents.map((d) => d.label)).toEqual(['a.html', 'b.htm', 'c', 'd.tar.html']);
  });

  it('names a URL input after its last path segment, or its whole host for a site root', async () => {
    const cwd = await folderWith({});
    const inputs = [
      'http://127.0.0.1:8000/',
      'https://example.com',
      'https://example.com/reports/q3.v2.html',
      'https://example.com/reports/report.html?x=1',
    ];
    const documents = await planDocuments({ ...base, cwd, inputs, outDir: 'pdfs' });
    // The extension is dropped once: the host 127.0.0.1 came out as 127.0.0.pdf, q3.v2.html as q3.pdf.
    expect(documents.map((d) => d.destination)).toEqual(
      ['127.0.0.1.pdf', 'example.com.pdf', 'q3.v2.pdf', 'report.pdf'].map((name) => ({
        kind: 'file',
        path: join(cwd, 'pdfs', name),
      })),
    );
  });

  it('encodes the folder of the base URL, so spaces and # survive', async () => {
    const cwd = await folderWith({});
    await mkdir(join(cwd, 'my docs #1'));
    await writeFile(join(cwd, 'my docs #1', 'page.html'), 'x');
    const [document] = await planDocuments({ ...base, cwd, inputs: ['my docs #1/page.html'] });
    expect(document!.baseUrl).toMatch(/\/my%20docs%20%231\/$/);
    expect(document!.baseUrl).toBe(folderUrl(join(cwd, 'my docs #1')));
  });
});

describe('planDocuments: standard input', () => {
  it('reads standard input and writes it to standard output by default, with links against the working directory', async () => {
    const cwd = await folderWith({});
    const documents = await planDocuments({ ...base, cwd, inputs: ['-'] });
    expect(documents).toEqual([
      { label: '<stdin>', source: { kind: 'stdin' }, destination: { kind: 'stdout' }, baseUrl: folderUrl(cwd) },
    ]);
  });

  it('writes standard input to stdin.pdf in --out-dir, and to -o', async () => {
    const cwd = await folderWith({});
    expect((await planDocuments({ ...base, cwd, inputs: ['-'], outDir: 'out' }))[0]!.destination).toEqual({
      kind: 'file',
      path: join(cwd, 'out', 'stdin.pdf'),
    });
    expect((await planDocuments({ ...base, cwd, inputs: ['-'], output: 'x.pdf' }))[0]!.destination).toEqual({
      kind: 'file',
      path: join(cwd, 'x.pdf'),
    });
  });

  it('mixes standard input with files: stdin to stdout, files beside themselves', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    const documents = await planDocuments({ ...base, cwd, inputs: ['a.html', '-'] });
    expect(documents.map((d) => d.destination)).toEqual([
      { kind: 'file', path: join(cwd, 'a.pdf') },
      { kind: 'stdout' },
    ]);
  });

  it('may read standard input only once', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    expect(await usageError({ ...base, cwd, inputs: ['-', '-'] })).toBe('standard input (-) can be read only once');
    expect(await usageError({ ...base, cwd, inputs: ['-', 'a.html', '-'], outDir: 'out' })).toBe(
      'standard input (-) can be read only once',
    );
  });
});

describe('planDocuments: the terminal', () => {
  const refusal = /^refusing to write a PDF to the terminal; use -o <file> or redirect standard output$/;

  it('refuses -o - when standard output is a terminal', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    expect(await usageError({ ...base, cwd, inputs: ['a.html'], output: '-', stdoutIsTTY: true })).toMatch(refusal);
  });

  it('refuses standard input to a terminal, but not into a file', async () => {
    const cwd = await folderWith({});
    expect(await usageError({ ...base, cwd, inputs: ['-'], stdoutIsTTY: true })).toMatch(refusal);
    const [document] = await planDocuments({ ...base, cwd, inputs: ['-'], output: 'x.pdf', stdoutIsTTY: true });
    expect(document!.destination).toEqual({ kind: 'file', path: join(cwd, 'x.pdf') });
  });

  it('does not care about the terminal when every PDF goes to a file', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    const [document] = await planDocuments({ ...base, cwd, inputs: ['a.html'], stdoutIsTTY: true });
    expect(document!.destination).toEqual({ kind: 'file', path: join(cwd, 'a.pdf') });
  });
});

describe('planDocuments: the --request file as the document', () => {
  it('renders the request file itself when it has htmlContent and no inputs are given', async () => {
    const cwd = await folderWith({});
    await mkdir(join(cwd, 'requests'));
    await writeFile(join(cwd, 'requests', 'body.json'), '{}');
    const documents = await planDocuments({
      ...base,
      cwd,
      inputs: [],
      requestFile: 'requests/body.json',
      requestHasDocument: true,
    });
    expect(documents).toEqual([
      {
        label: 'requests/body.json',
        source: { kind: 'request' },
        baseUrl: folderUrl(join(cwd, 'requests')),
        destination: { kind: 'file', path: join(cwd, 'requests', 'body.pdf') },
      },
    ]);
  });

  it("sends the request document to -o or into --out-dir under the request file's name", async () => {
    const cwd = await folderWith({ 'body.json': '{}' });
    const plan = { ...base, cwd, inputs: [], requestFile: 'body.json', requestHasDocument: true };
    expect((await planDocuments({ ...plan, output: 'x.pdf' }))[0]!.destination).toEqual({
      kind: 'file',
      path: join(cwd, 'x.pdf'),
    });
    expect((await planDocuments({ ...plan, outDir: 'out' }))[0]!.destination).toEqual({
      kind: 'file',
      path: join(cwd, 'out', 'body.pdf'),
    });
    expect((await planDocuments({ ...plan, output: '-' }))[0]!.destination).toEqual({ kind: 'stdout' });
  });

  it('renders the inputs, not the request file, when inputs are given', async () => {
    const cwd = await folderWith({ 'body.json': '{}', 'a.html': 'a' });
    const documents = await planDocuments({
      ...base,
      cwd,
      inputs: ['a.html'],
      requestFile: 'body.json',
      requestHasDocument: true,
    });
    expect(documents.map((d) => d.source)).toEqual([{ kind: 'file', path: join(cwd, 'a.html') }]);
  });

  it('needs inputs when the request file has no htmlContent', async () => {
    const cwd = await folderWith({ 'body.json': '{}' });
    expect(await usageError({ ...base, cwd, inputs: [], requestFile: 'body.json' })).toBe(
      'no input: give HTML files, http(s) URLs, - for standard input, or --request with an htmlContent or url field',
    );
  });
});

describe('planDocuments: usage errors', () => {
  it.each([
    [
      { inputs: [] },
      'no input: give HTML files, http(s) URLs, - for standard input, or --request with an htmlContent or url field',
    ],
    [{ inputs: [], requestHasDocument: true }, /^no input/],
    [{ inputs: ['missing.html'] }, 'input not found: missing.html'],
    [{ inputs: ['a.html', 'missing.html', 'b.html'], outDir: 'out' }, 'input not found: missing.html'],
    [{ inputs: ['sub'] }, 'input is not a file: sub'],
    [{ inputs: ['sub/'], outDir: 'out' }, 'input is not a file: sub/'],
    [
      { inputs: ['a.html', 'b.html'], output: 'x.pdf' },
      '-o/--output names one file, but 2 inputs were given; use --out-dir for several',
    ],
    [
      { inputs: ['a.html', '-'], output: '-' },
      '-o/--output names one file, but 2 inputs were given; use --out-dir for several',
    ],
    [{ inputs: ['a.html'], output: 'x.pdf', outDir: 'out' }, 'give either -o/--output or --out-dir, not both'],
    [{ inputs: ['a.html'], output: '-', outDir: 'out' }, 'give either -o/--output or --out-dir, not both'],
  ])('rejects %j', async (plan, message) => {
    const cwd = await folderWith({ 'a.html': 'a', 'b.html': 'b' });
    await mkdir(join(cwd, 'sub'));
    const text = await usageError({ ...base, cwd, ...plan });
    if (typeof message === 'string') expect(text).toBe(message);
    else expect(text).toMatch(message);
  });

  it('rejects two inputs with the same base name in one --out-dir, naming both and the PDF', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    await mkdir(join(cwd, 'sub'));
    await writeFile(join(cwd, 'sub', 'a.html'), 'a');
    expect(await usageError({ ...base, cwd, inputs: ['a.html', 'sub/a.html'], outDir: 'out' })).toBe(
      `a.html and sub/a.html would both be written to ${join(cwd, 'out', 'a.pdf')}; --keep-folders keeps their folders under --out-dir`,
    );
  });

  it('rejects two inputs that would land on the same PDF beside them', async () => {
    const cwd = await folderWith({ 'a.html': 'a', 'a.htm': 'a' });
    expect(await usageError({ ...base, cwd, inputs: ['a.html', 'a.htm'] })).toBe(
      `a.html and a.htm would both be written to ${join(cwd, 'a.pdf')}`,
    );
  });

  it('rejects the same input given twice', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    expect(await usageError({ ...base, cwd, inputs: ['a.html', './a.html'], outDir: 'out' })).toContain(
      'a.html and ./a.html would both be written to',
    );
  });
});

describe('planDocuments: what is found out before anything renders', () => {
  it('reports every bad input at once', async () => {
    const cwd = await folderWith({ 'a.html': '<p>a</p>' });
    await mkdir(join(cwd, 'folder'));
    expect(
      await usageError({ ...base, cwd, inputs: ['a.html', 'missing.html', 'folder', 'gone.html'], outDir: 'out' }),
    ).toBe('input not found: missing.html\ninput is not a file: folder\ninput not found: gone.html');
  });

  it('refuses -o naming a folder, and a destination under a file, naming the path', async () => {
    const cwd = await folderWith({ 'a.html': '<p>a</p>', 'note.txt': 'x' });
    await mkdir(join(cwd, 'pdfs'));
    expect(await usageError({ ...base, cwd, inputs: ['a.html'], output: 'pdfs' })).toBe(
      `cannot write ${join(cwd, 'pdfs')}: it is a folder; name the PDF file (or use --out-dir)`,
    );
    expect(await usageError({ ...base, cwd, inputs: ['a.html'], outDir: 'note.txt/out' })).toBe(
      `cannot write ${join(cwd, 'note.txt', 'out', 'a.pdf')}: ${join(cwd, 'note.txt')} is not a folder`,
    );
    // A folder that does not exist yet is fine: it is made when the PDF is written.
    expect((await planDocuments({ ...base, cwd, inputs: ['a.html'], outDir: 'new/deeper' }))[0]!.destination).toEqual({
      kind: 'file',
      path: join(cwd, 'new', 'deeper', 'a.pdf'),
    });
  });

  it('keeps inputs of the same name apart with --keep-folders, below their common folder', async () => {
    const cwd = await folderWith({});
    for (const quarter of ['q3', 'q4']) {
      await mkdir(join(cwd, 'reports', quarter), { recursive: true });
      await writeFile(join(cwd, 'reports', quarter, 'summary.html'), '<p>x</p>');
    }
    const inputs = ['reports/q3/summary.html', 'reports/q4/summary.html'];
    expect(await usageError({ ...base, cwd, inputs, outDir: 'out' })).toContain('would both be written to');
    const documents = await planDocuments({ ...base, cwd, inputs, outDir: 'out', keepFolders: true });
    expect(documents.map((document) => document.destination)).toEqual([
      { kind: 'file', path: join(cwd, 'out', 'q3', 'summary.pdf') },
      { kind: 'file', path: join(cwd, 'out', 'q4', 'summary.pdf') },
    ]);
    expect(await usageError({ ...base, cwd, inputs, keepFolders: true })).toBe(
      '--keep-folders needs --out-dir, under which the folders are kept',
    );
  });
});
