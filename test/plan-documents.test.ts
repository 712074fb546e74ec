/** Where `pdfrender render` sends each PDF, and which usage mistakes stop it before rendering. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { planDocuments, type PlanInput } from '../src/cli/plan-documents.js';
import { isPdfRenderError } from '../src/errors.js';
import { folderWith, removeTempDirs } from './support/files.js';

afterAll(removeTempDirs);

const base = { requestHasHtml: false, stdoutIsTTY: false };

async function usageError(plan: PlanInput): Promise<string> {
  const error = await planDocuments(plan).catch((e) => e);
  expect(isPdfRenderError(error, 'USAGE')).toBe(true);
  return (error as Error).message;
}

describe('planDocuments', () => {
  it('writes a PDF beside its input by default, resolving links against its folder', async () => {
    const cwd = await folderWith({});
    await mkdir(join(cwd, 'docs'));
    await writeFile(join(cwd, 'docs', 'page.html'), '<p>x</p>');
    const [document] = await planDocuments({ ...base, cwd, inputs: ['docs/page.html'] });
    expect(document).toEqual({
      label: 'docs/page.html',
      source: { kind: 'file', path: join(cwd, 'docs', 'page.html') },
      baseUrl: `${pathToFileURL(join(cwd, 'docs')).href}/`,
      destination: { kind: 'file', path: join(cwd, 'docs', 'page.pdf') },
    });
  });

  it('writes to -o, or to standard output with -o -', async () => {
    const cwd = await folderWith({ 'a.html': 'a' });
    expect((await planDocuments({ ...base, cwd, inputs: ['a.html'], output: 'out/x.pdf' }))[0]!.destination).toEqual({ kind: 'file', path: join(cwd, 'out/x.pdf') });
    expect((await planDocuments({ ...base, cwd, inputs: ['a.html'], output: '-' }))[0]!.destination).toEqual({ kind: 'stdout' });
  });

  it('names each PDF after its input in --out-dir', async () => {
    const cwd = await folderWith({ 'a.html': 'a', 'b.htm': 'b', 'c': 'c' });
    const documents = await planDocuments({ ...base, cwd, inputs: ['a.html', 'b.htm', 'c'], outDir: 'pdfs' });
    expect(documents.map((d) => d.destination)).toEqual(['a.pdf', 'b.pdf', 'c.pdf'].map((name) => ({ kind: 'file', path: join(cwd, 'pdfs', name) })));
  });

  it('reads standard input once and writes it to standard output by default', async () => {
    const cwd = await folderWith({});
    const [document] = await planDocuments({ ...base, cwd, inputs: ['-'] });
    expect(document).toMatchObject({ label: '<stdin>', source: { kind: 'stdin' }, destination: { kind: 'stdout' }, baseUrl: `${pathToFileURL(cwd).href}/` });
    expect(await usageError({ ...base, cwd, inputs: ['-', '-'] })).toContain('standard input (-) can be read only once');
  });

  it('renders the --request file itself when it has htmlContent and no inputs are given', async () => {
    const cwd = await folderWith({ 'body.json': '{}' });
    const [document] = await planDocuments({ ...base, cwd, inputs: [], requestFile: 'body.json', requestHasHtml: true });
    expect(document).toMatchObject({ label: 'body.json', source: { kind: 'request' }, destination: { kind: 'file', path: join(cwd, 'body.pdf') } });
    expect(await usageError({ ...base, cwd, inputs: [], requestFile: 'body.json' })).toMatch(/^no input/);
  });

  it.each([
    [{ inputs: [] }, /^no input: give HTML files/],
    [{ inputs: ['missing.html'] }, 'input not found: missing.html'],
    [{ inputs: ['sub'] }, 'input is not a file: sub'],
    [{ inputs: ['a.html', 'b.html'], output: 'x.pdf' }, '-o/--output names one file, but 2 inputs were given; use --out-dir for several'],
    [{ inputs: ['a.html'], output: 'x.pdf', outDir: 'out' }, 'give either -o/--output or --out-dir, not both'],
    [{ inputs: ['a.html'], output: '-', stdoutIsTTY: true }, /refusing to write a PDF to the terminal/],
    [{ inputs: ['-'], stdoutIsTTY: true }, /refusing to write a PDF to the terminal/],
    [{ inputs: ['a.html', 'sub/a.html'], outDir: 'out' }, /a\.html and sub\/a\.html would both be written to .*out\/a\.pdf/],
  ])('rejects %j', async (plan, message) => {
    const cwd = await folderWith({ 'a.html': 'a', 'b.html': 'b' });
    await mkdir(join(cwd, 'sub'));
    await writeFile(join(cwd, 'sub', 'a.html'), 'a');
    const text = await usageError({ ...base, cwd, ...plan });
    if (typeof message === 'string') expect(text).toBe(message);
    else expect(text).toMatch(message);
  });
});
