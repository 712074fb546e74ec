/**
 * render-sync's `assets` (issue 29 §1): files sent with the document, by name as base64, become its
 * folder for that render: fixtures/template-folder's header, style sheet, logo and web font, sent as
 * JSON, print as they do from the CLI; nothing outside that folder is read, the folder is deleted
 * after the render, and the count and size limits answer 422 and 413 naming them. A real server on
 * an ephemeral port, real Chromium; the PDF is read back.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withAssetFolder } from '../src/engine/asset-folder.js';
import { renderFile } from '../src/engine/render-file.js';
import { maxAssetBytes, maxAssets } from '../src/request-assets.js';
import { httpStatusFor } from '../src/errors.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readTextFonts } from './support/pdf.js';
import { postJson, startServer, type TestServer } from './support/server.js';
import { inProcessCli } from './support/cli-in-process.js';
import { receiver, waitForArrivals } from './support/receiver.js';

const layout = resolve(import.meta.dirname, '../fixtures/template-folder');
let server: TestServer;
const cli = inProcessCli();

beforeAll(async () => {
  server = await startServer({});
});

afterAll(async () => {
  await server.close();
  await cli.close();
  await removeTempDirs();
});

const base64 = async (path: string) => (await readFile(join(layout, path))).toString('base64');

async function renderSync(body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

/** The PDF behind a render-sync answer's fileUrl, written to a temp file for poppler. */
async function pdfOf(json: Record<string, unknown>): Promise<string> {
  const path = join(await tempDir(), 'out.pdf');
  await writeFile(path, new Uint8Array(await (await fetch(String(json.fileUrl))).arrayBuffer()));
  return path;
}

/** The layout's invoice and header, with the logo, style sheet and web font they use sent as assets. */
const invoiceWithAssets = async () => ({
  htmlContent: '<link rel="stylesheet" href="styles.css"><h1 class="brand">Invoice 2026-001</h1>',
  headerHtmlContent: await readFile(join(layout, 'templates/header.html'), 'utf8'),
  footerHtmlContent: await readFile(join(layout, 'templates/footer.html'), 'utf8'),
  marginTop: '1in',
  marginBottom: '1in',
  assets: {
    'logo.png': await base64('templates/logo.png'),
    'styles.css': await base64('templates/styles.css'),
    'fonts/DejaVuSerif.ttf': await base64('templates/fonts/DejaVuSerif.ttf'),
  },
});

const assetFolders = async () => (await readdir(tmpdir())).filter((name) => name.startsWith('pdfrender-assets-'));

describe('render-sync and render-async with assets', () => {
  it("renders the document with its header's logo, style sheet and web font from the assets, then deletes them", async () => {
    const before = await assetFolders();
    const { status, json } = await renderSync({
      ...(await invoiceWithAssets()),
    });
    expect(status).toBe(200);
    expect(json).toMatchObject({ outcome: 'SUCCESS', blocked: [], failed: [] });
    const path = await pdfOf(json);
    const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
    expect(images.map((line) => line.trim().split(/\s+/).slice(0, 5).join(' '))).toEqual(['1 0 image 120 40']);
    const fonts = await readTextFonts(await readFile(path));
    const fontOf = (text: string) => fonts.find((item) => item.text.includes(text))?.font;
    expect([fontOf('ACME Invoicing'), fontOf('Invoice 2026-001'), fontOf('Page')]).toEqual([
      'DejaVuSerif',
      'DejaVuSerif',
      'DejaVuSerif',
    ]);
    expect(await assetFolders()).toEqual(before);
  });

  it('takes the assets as uploaded files (multipart assets parts, named by their file names)', async () => {
    const { assets, ...fields } = await invoiceWithAssets();
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const [name, content] of Object.entries(assets))
      form.append('assets', new Blob([Buffer.from(content, 'base64')]), name);
    const response = await fetch(`${server.url}/api/pdfs/render-sync`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    const path = await pdfOf((await response.json()) as Record<string, unknown>);
    const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
    expect(images.map((line) => line.trim().split(/\s+/).slice(0, 5).join(' '))).toEqual(['1 0 image 120 40']);
    const fonts = await readTextFonts(await readFile(path));
    // Header, body and footer in the web font the assets carry.
    for (const text of ['ACME Invoicing', 'Invoice 2026-001', 'Page'])
      expect(fonts.find((item) => item.text.includes(text))?.font).toBe('DejaVuSerif');
    // The same name twice, or files beside a string of JSON, is a 422 naming the field.
    const twice = new FormData();
    twice.append('htmlContent', '<p>x</p>');
    twice.append('assets', new Blob(['a']), 'a.css');
    twice.append('assets', new Blob(['b']), 'a.css');
    const refused = await fetch(`${server.url}/api/pdfs/render-sync`, { method: 'POST', body: twice });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: unknown }).errors).toEqual({ assets: ['"a.css" is uploaded twice'] });
  });

  it('refuses names no folder can hold when the job is queued, not when it renders (422, never retried)', async () => {
    const queued = await fetch(`${server.url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlContent: '<p>x</p>', identifier: 'clash', assets: { a: '', 'a/b.css': '', A: '' } }),
    });
    expect(queued.status).toBe(422);
    expect(((await queued.json()) as { errors: unknown }).errors).toEqual({
      assets: ['"a" collides with another asset\'s name', '"A" collides with another asset\'s name'],
    });
  });

  it('renders a library call with assets as the server does, and refuses them beside a file of its own', async () => {
    const { pdf, report } = await server.deps.engine.render({
      htmlContent: '<img src="logo.png" alt="">',
      assets: { 'logo.png': await base64('templates/logo.png') },
    });
    expect(report.resources).toEqual({ blocked: [], failed: [], brokenImages: [] });
    const path = join(await tempDir(), 'library.pdf');
    await writeFile(path, pdf);
    const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
    expect(images.map((line) => line.trim().split(/\s+/).slice(0, 5).join(' '))).toEqual(['1 0 image 120 40']);
    const beside = await renderFile(server.deps.engine, join(layout, 'invoices/invoice.html'), {
      assets: { 'logo.png': '' },
    }).catch((error: unknown) => error);
    expect(beside).toMatchObject({ code: 'VALIDATION_FAILED', fieldErrors: { assets: [expect.any(String)] } });
  });

  it('reads nothing outside the assets: ../ is refused', async () => {
    const { status, json } = await renderSync({
      htmlContent: '<img src="logo.png"><img src="../../etc/passwd"><iframe src="../secret.txt"></iframe>',
      assets: { 'logo.png': await base64('templates/logo.png') },
    });
    expect(status).toBe(200);
    const blocked = json.blocked as Array<{ url: string; code: string; reason: string }>;
    expect(blocked.map(({ code, reason }) => ({ code, reason }))).toEqual([
      { code: 'FILE_NOT_ALLOWED', reason: "file: URLs outside the document's folder are not allowed" },
      { code: 'FILE_NOT_ALLOWED', reason: "file: URLs outside the document's folder are not allowed" },
    ]);
    expect(blocked.map(({ url }) => url).sort()).toEqual([
      expect.stringMatching(/^file:\/\/\/etc\/passwd$/),
      expect.stringMatching(/^file:\/\/\/tmp\/secret\.txt$/),
    ]);
  });

  it('answers 422 naming a bad name, a url document and the count limit', async () => {
    const bad = await renderSync({ htmlContent: '<p>x</p>', assets: { '../x.png': '', 'ok.css': 'not base64!' } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual({
      assets: [
        expect.stringMatching(/^asset name "\.\.\/x\.png" must be a relative path/),
        '"ok.css" must be the file as base64',
      ],
    });
    const withUrl = await renderSync({ url: 'https://example.com/', assets: { 'a.css': '' } });
    expect(withUrl.status).toBe(422);
    expect(withUrl.json.errors).toMatchObject({ assets: ['go with htmlContent, not with url'] });
    const many = Object.fromEntries(Array.from({ length: maxAssets + 1 }, (_, index) => [`a${index}.css`, '']));
    const tooMany = await renderSync({ htmlContent: '<p>x</p>', assets: many });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json.errors).toMatchObject({ assets: [`at most ${maxAssets} assets (got ${maxAssets + 1})`] });
    const queued = await fetch(`${server.url}/api/pdfs/render-async`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlContent: '<p>x</p>', identifier: 'a', assets: { '../a.css': '' } }),
    });
    expect(queued.status).toBe(422);
    expect(JSON.stringify(await queued.json())).toContain('must be a relative path');
  });

  it('render-async keeps the assets with the job until it renders, renders with them, and keeps nothing after', async () => {
    const hook = await receiver();
    try {
      const before = await assetFolders();
      await postJson(server, '/api/webhooks', { url: hook.url });
      const queued = await postJson(server, '/api/pdfs/render-async', {
        identifier: 'with-assets',
        ...(await invoiceWithAssets()),
      });
      expect(queued.status).toBe(202);
      const [arrival] = await waitForArrivals(hook, 1, 30_000);
      const event = JSON.parse(arrival!.body) as { type: string; payload: { url: string; jobId: string } };
      expect(event.type).toBe('PDF_RENDERED');
      const path = join(await tempDir(), 'async.pdf');
      await writeFile(path, new Uint8Array(await (await fetch(event.payload.url)).arrayBuffer()));
      const images = execFileSync('pdfimages', ['-list', path], { encoding: 'utf8' }).trim().split('\n').slice(2);
      expect(images.map((line) => line.trim().split(/\s+/).slice(0, 5).join(' '))).toEqual(['1 0 image 120 40']);
      const fonts = await readTextFonts(await readFile(path));
      // Header, body and footer in the web font the assets carry.
      for (const text of ['ACME Invoicing', 'Invoice 2026-001', 'Page'])
        expect(fonts.find((item) => item.text.includes(text))?.font).toBe('DejaVuSerif');
      expect(await assetFolders()).toEqual(before);
      // The finished job keeps no request, and with it no asset.
      const row = server.db.prepare('SELECT request FROM jobs WHERE id = ?').get(event.payload.jobId) as {
        request: string | null;
      };
      expect(row.request).toBeNull();
    } finally {
      hook.close();
    }
  });

  it('refuses assets over the size limit (413) and names that collide (422), before anything is written', async () => {
    const before = await assetFolders();
    const huge = { 'big.bin': 'A'.repeat(Math.ceil(((maxAssetBytes + 1) * 4) / 3) + 4) };
    const tooBig = await withAssetFolder(huge, async () => 'rendered').catch((error: unknown) => error);
    expect(tooBig).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('limit of 50 MB') });
    expect(httpStatusFor('PAYLOAD_TOO_LARGE')).toBe(413);
    const collide = await withAssetFolder({ a: '', 'a/b.css': '' }, async () => 'rendered').catch((error) => error);
    expect(collide).toMatchObject({
      code: 'VALIDATION_FAILED',
      fieldErrors: { assets: [`"a" collides with another asset's name`] },
    });
    expect(await assetFolders()).toEqual(before);
  });

  it('replays on the command line: a --request body with assets renders with them', async () => {
    const dir = await tempDir();
    const body = {
      htmlContent: '<img src="images/logo.png">',
      assets: { 'images/logo.png': await base64('templates/logo.png') },
    };
    await writeFile(join(dir, 'body.json'), JSON.stringify(body));
    const run = await cli.run(['render', '--request', 'body.json', '-o', 'out.pdf', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.toString()).documents[0]).toMatchObject({ blocked: [], failed: [] });
    const images = execFileSync('pdfimages', ['-list', join(dir, 'out.pdf')], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(images.slice(2).map((line) => line.trim().split(/\s+/).slice(3, 5).join('x'))).toEqual(['120x40']);
  });
});
