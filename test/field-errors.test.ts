/**
 * No silent field errors (issue 29 §3, §5): an unknown field is named with the field it is nearest
 * to, from the library, over HTTP (422, or a warning with --allow-unknown-fields) and in the CLI
 * (exit 2); `format` names a paper size in requests, and one that disagrees with paperWidth or
 * paperHeight names both; every bad value of a run is reported at once; engine.render takes a
 * plain object and validates it as parseRenderRequest does. Real Chromium, real HTTP.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { nearestName } from '../src/unknown-fields.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { pt, readPdf } from './support/pdf.js';
import { receiver, waitForArrivals } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';

let engine: Engine;
let server: TestServer;
let lenient: TestServer;
const cli = inProcessCli();

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 10_000 });
  server = await startServer({ rateLimit: 1000 }, { engine });
  lenient = await startServer({ rateLimit: 1000, allowUnknownFields: true }, { engine });
});

afterAll(async () => {
  await server?.close();
  await lenient?.close();
  await engine?.close();
  await cli.close();
  await removeTempDirs();
});

/** The error `run` throws (or rejects with). */
async function errorOf(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('unknown fields in the library', () => {
  it.each([
    ['marginTpo', 'marginTop'],
    ['margin_top', 'marginTop'],
    ['PrintBackground', 'printBackground'],
    ['preferCSSPageSize', 'preferCssPageSize'],
    ['headerTemplate', 'headerHtmlContent'],
    ['scael', 'scale'],
  ])('names %s, suggesting %s', async (name, suggestion) => {
    const error = await errorOf(() => parseRenderRequest({ htmlContent: 'x', [name]: '1in' }));
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: { [name]: [`is not a request field; did you mean ${suggestion}?`] },
    });
  });

  it('suggests nothing for a name near no field', () => {
    expect(nearestName('colourProfile', ['marginTop', 'scale'])).toBeUndefined();
    expect(() => parseRenderRequest({ htmlContent: 'x', colourProfile: 'srgb' })).toThrow(
      expect.objectContaining({ fieldErrors: { colourProfile: ['is not a request field'] } }),
    );
  });

  it('cuts a name of a megabyte when echoing it, and suggests nothing for it', () => {
    const name = `marginTop${'x'.repeat(1_000_000)}`;
    expect(() => parseRenderRequest({ htmlContent: 'x', [name]: 1 })).toThrow(
      expect.objectContaining({ fieldErrors: { [`${name.slice(0, 100)}…`]: ['is not a request field'] } }),
    );
  });

  it("accepts render-async's identifier and priority, so one body serves both routes", () => {
    expect(parseRenderRequest({ htmlContent: 'x', identifier: 'inv-1', priority: 3 })).not.toHaveProperty('identifier');
  });

  it('reports the unknown field beside the bad values', async () => {
    const error = await errorOf(() => parseRenderRequest({ htmlContent: 'x', marginTpo: '1in', scale: 9 }));
    expect(Object.keys((error as { fieldErrors: object }).fieldErrors).sort()).toEqual(['marginTpo', 'scale']);
  });
});

describe('format', () => {
  it.each([
    ['A4', 210 * pt.mm, 297 * pt.mm],
    ['letter', 612, 792],
    ['A5', 148 * pt.mm, 210 * pt.mm],
  ])('%s prints on its paper size (a plain object to engine.render)', async (format, width, height) => {
    const result = await engine.render({ htmlContent: '<p>sized</p>', format });
    const page = (await readPdf(result.pdf)).pages[0]!;
    // Chromium rounds a page size up to its own grid, by under 0.7pt.
    expect(Math.abs(page.width - width)).toBeLessThan(1);
    expect(Math.abs(page.height - height)).toBeLessThan(1);
  });

  it('names both fields when paperWidth disagrees, and accepts the same size given twice', async () => {
    const error = await errorOf(() => parseRenderRequest({ htmlContent: 'x', format: 'A4', paperWidth: '8in' }));
    expect(error).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: {
        format: [expect.stringContaining('format A4 (210mm wide) and paperWidth disagree')],
        paperWidth: [expect.stringContaining('give format or paperWidth, not both')],
      },
    });
    expect(parseRenderRequest({ htmlContent: 'x', format: 'A4', paperWidth: '210mm' }).paperHeight).toBeCloseTo(
      297 / 25.4,
    );
  });

  it('refuses an unknown name, listing the formats', () => {
    expect(() => parseRenderRequest({ htmlContent: 'x', format: 'A9' })).toThrow(
      expect.objectContaining({
        fieldErrors: { format: ['must be one of Letter, Legal, Tabloid, A3, A4, A5 (got "A9")'] },
      }),
    );
  });
});

describe('engine.render with a plain object', () => {
  it('validates it: scale 9 is VALIDATION_FAILED naming scale, not a failed render', async () => {
    const error = await errorOf(() => engine.render({ htmlContent: '<p>x</p>', scale: 9 }));
    expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
    expect((error as { fieldErrors: object }).fieldErrors).toEqual({
      scale: [expect.stringContaining('must be between 0.1 and 2')],
    });
    const unknown = await errorOf(() => engine.render({ htmlContent: '<p>x</p>', marginTpo: '1in' } as never));
    expect(unknown).toMatchObject({ code: 'VALIDATION_FAILED', fieldErrors: { marginTpo: [expect.any(String)] } });
  });
});

describe('over HTTP', () => {
  const post = (target: TestServer, body: BodyInit, headers: Record<string, string> = {}, path = 'render-sync') =>
    fetch(`${target.url}/api/pdfs/${path}`, { method: 'POST', body, headers });
  const json = { 'Content-Type': 'application/json' };

  it('answers 422 naming an unknown field in JSON, multipart and urlencoded bodies', async () => {
    const form = new FormData();
    form.append('htmlContent', '<p>x</p>');
    form.append('marginTpo', '1in');
    for (const [body, headers] of [
      [JSON.stringify({ htmlContent: '<p>x</p>', marginTpo: '1in' }), json],
      [form, {}],
      [new URLSearchParams({ htmlContent: '<p>x</p>', marginTpo: '1in' }), {}],
    ] as const) {
      const response = await post(server, body, headers);
      expect(response.status).toBe(422);
      expect(await response.json()).toMatchObject({
        outcome: 'VALIDATION_FAILED',
        errors: { marginTpo: ['is not a request field; did you mean marginTop?'] },
      });
    }
    const queued = await post(
      server,
      JSON.stringify({ htmlContent: 'x', identifier: 'a', marginTpo: 1 }),
      json,
      'render-async',
    );
    expect(queued.status).toBe(422);
    expect(await queued.json()).toMatchObject({ errors: { marginTpo: [expect.stringContaining('marginTop')] } });
  });

  it("renders RenderPDF.io's PHP client's render-sync body, identifier and all", async () => {
    const response = await post(
      server,
      new URLSearchParams({ htmlContent: '<p>php</p>', identifier: 'invoice-7', landscape: '0', paperWidth: '8.5in' }),
      { Accept: 'application/pdf' },
    );
    expect(response.status).toBe(200);
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toBe('php');
  });

  it('with --allow-unknown-fields renders and names the field in X-Pdfrender-Warnings', async () => {
    const response = await post(lenient, JSON.stringify({ htmlContent: '<p>x</p>', marginTpo: '1in' }), {
      ...json,
      Accept: 'application/pdf',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Pdfrender-Warnings')).toBe(
      'unknown field marginTpo ignored: it is not a request field; did you mean marginTop?',
    );
  });

  it('with --allow-unknown-fields queues a render-async body and names the field on the 202', async () => {
    const hook = await receiver();
    try {
      await lenient.deps.webhooks.add(hook.url, Date.now());
      const body = { htmlContent: '<p>x</p>', identifier: 'inv-9', priorty: 2 };
      const queued = await post(lenient, JSON.stringify(body), json, 'render-async');
      expect(queued.status).toBe(202);
      expect(queued.headers.get('X-Pdfrender-Warnings')).toBe(
        'unknown field priorty ignored: it is not a request field; did you mean priority?',
      );
      await waitForArrivals(hook, 1, 20_000);
    } finally {
      hook.close();
    }
  });

  it('takes format in a form, and answers 422 naming format and paperHeight when they disagree', async () => {
    const form = new FormData();
    form.append('htmlContent', '<p>x</p>');
    form.append('format', 'A4');
    const ok = await post(server, form, { Accept: 'application/pdf' });
    expect(ok.status).toBe(200);
    expect((await readPdf(new Uint8Array(await ok.arrayBuffer()))).pages[0]!.width).toBeCloseTo(210 * pt.mm, -1);
    const clash = await post(server, JSON.stringify({ htmlContent: 'x', format: 'Letter', paperHeight: '10in' }), json);
    expect(clash.status).toBe(422);
    const body = (await clash.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(body.errors).sort()).toEqual(['format', 'paperHeight']);
  });
});

describe('pdfrender render', () => {
  it('reports every bad value at once: --format A9 --margin-top 1furlong --scale 9', async () => {
    const dir = await folderWith({ 'x.html': '<p>x</p>' });
    const run = await cli.run(['render', 'x.html', '--format', 'A9', '--margin-top', '1furlong', '--scale', '9'], {
      cwd: dir,
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--format: must be one of Letter, Legal, Tabloid, A3, A4, A5 (got "A9")');
    expect(run.stderr).toMatch(/--margin-top: .*furlong/);
    expect(run.stderr).toContain('--scale: must be between 0.1 and 2');
  });

  it('reports a bad field and a missing input together', async () => {
    const dir = await folderWith({});
    const run = await cli.run(['render', 'missing.html', '--scale', '9'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--scale: must be between 0.1 and 2');
    expect(run.stderr).toContain('input not found: missing.html');
  });

  it('names an unknown field of a request file with its suggestion, and takes its format', async () => {
    const dir = await folderWith({ 'x.html': '<p>x</p>' });
    await writeFile(join(dir, 'req.json'), JSON.stringify({ marginTpo: '1in', format: 'a5' }));
    const run = await cli.run(['render', 'x.html', '--request', 'req.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('marginTpo in req.json: is not a request field; did you mean marginTop?');
    await writeFile(join(dir, 'req.json'), JSON.stringify({ marginTop: '1in', format: 'a5' }));
    const ok = await cli.run(['render', 'x.html', '--request', 'req.json', '-o', 'x.pdf'], { cwd: dir });
    expect(ok.code).toBe(0);
    const { readFile } = await import('node:fs/promises');
    expect((await readPdf(await readFile(join(dir, 'x.pdf')))).pages[0]!.width).toBeCloseTo(148 * pt.mm, -1);
  });

  it("lets a page-size flag override the request file's format, keeping its other side", async () => {
    const dir = await folderWith({ 'x.html': '<p>x</p>', 'req.json': JSON.stringify({ format: 'A5' }) });
    const run = await cli.run(['render', 'x.html', '--request', 'req.json', '--paper-width', '5in', '-o', 'x.pdf'], {
      cwd: dir,
    });
    expect(run.stderr).not.toContain('disagree');
    expect(run.code).toBe(0);
    const { readFile } = await import('node:fs/promises');
    const page = (await readPdf(await readFile(join(dir, 'x.pdf')))).pages[0]!;
    expect(page.width).toBeCloseTo(5 * 72, -1);
    expect(page.height).toBeCloseTo(210 * pt.mm, -1);
  });

  it('refuses a second --request, naming both files', async () => {
    const dir = await folderWith({ 'a.json': '{"htmlContent":"<p>a</p>"}', 'b.json': '{"htmlContent":"<p>b</p>"}' });
    const run = await cli.run(['render', '--request', 'a.json', '--request', 'b.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      '--request: given 2 times (a.json, b.json): a run takes one request file; run pdfrender once per request file',
    );
  });

  it('refuses a .json input with the hint to give it with --request', async () => {
    const dir = await folderWith({ 'req.json': '{"htmlContent":"<p>x</p>"}' });
    const run = await cli.run(['render', 'req.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      'req.json is JSON, not HTML: to render the request body it holds, give it with --request req.json',
    );
  });
});
