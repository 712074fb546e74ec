/**
 * Header and footer images: each distinct image fetched and written once however often it is
 * referenced, and what one request may inline bounded (bytes together, distinct images per template).
 */
import { spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { inlineTemplateResources, maxTemplateImageBytes } from '../src/engine/templates/inline-templates.js';
import { maxImageBytes } from '../src/engine/templates/template-fetch.js';
import { PdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { folderWith, redPng, removeTempDirs } from './support/files.js';
import { readPaint, readPdf } from './support/pdf.js';

/** The 2x2 red PNG made `bytes` long by an ancillary chunk decoders skip. */
function paddedPng(bytes: number): Buffer {
  const data = Buffer.alloc(bytes - redPng.length - 12, 0x20);
  const type = Buffer.from('zPAD');
  const chunk = Buffer.concat([Buffer.alloc(4), type, data, Buffer.alloc(4)]);
  chunk.writeUInt32BE(data.length, 0);
  chunk.writeUInt32BE(crc32(Buffer.concat([type, data])), 8 + data.length);
  const afterHeader = 8 + 25; // signature, IHDR
  return Buffer.concat([redPng.subarray(0, afterHeader), chunk, redPng.subarray(afterHeader)]);
}

let engine: Engine;

beforeAll(() => {
  engine = createEngine({
    executablePath,
    concurrency: 1,
    timeoutMs: 30_000,
    files: 'document-folder',
    network: { network: 'none', allowHosts: [] },
  });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

const threePages = Array.from({ length: 3 }, (_, i) => `<p style="break-after: page">Page body ${i + 1}</p>`).join('');

describe('one copy per distinct image', () => {
  const img = '<img src="logo.png" style="height:6px;width:6px">';
  const css =
    '<span style="display:inline-block;width:6px;height:6px;background:url(logo.png) 0 0/6px 6px no-repeat"></span>';
  for (const [what, reference, megabytes] of [
    ['<img>', img, 2],
    ['CSS url()', css, 1],
  ] as const) {
    it(`prints a ${megabytes} MB image referenced sixty times from ${what} in the header of every page`, async () => {
      const dir = await folderWith({ 'logo.png': paddedPng(megabytes * 1024 * 1024) });
      const request = parseRenderRequest({
        htmlContent: threePages,
        headerHtmlContent: `<div>${reference.repeat(60)} Header</div>`,
        marginTop: '1in',
      });
      const result = await engine.render(request, { baseUrl: pathToFileURL(`${dir}/`).href });
      const pdf = await readPdf(result.pdf);
      expect(pdf.pages).toHaveLength(3);
      for (let page = 1; page <= 3; page += 1) {
        expect(pdf.pages[page - 1]!.text).toContain('Header');
        expect((await readPaint(result.pdf, page)).images).toBe(60);
      }
      expect(result.warnings).toEqual([]);
    });
  }

  it('fails, naming the limit, when CSS refers sixty times to an image too big to define once', async () => {
    const dir = await folderWith({ 'logo.png': paddedPng(2 * 1024 * 1024) });
    const request = parseRenderRequest({
      htmlContent: '<p>body</p>',
      headerHtmlContent: `<div>${css.repeat(60)}</div>`,
    });
    const error = await engine.render(request, { baseUrl: pathToFileURL(`${dir}/`).href }).catch((e: unknown) => e);
    expect((error as PdfRenderError).code).toBe('RENDER_PDF_FAILED');
    expect((error as PdfRenderError).message).toMatch(
      /would carry 120 MB of images and fonts, more than the 10 MB limit for one request/,
    );
  });

  it('fetches each distinct image once and writes it once per template', async () => {
    const png = paddedPng(100_000);
    const fetched: string[] = [];
    const fetcher = async (url: URL) => (fetched.push(url.href), { bytes: png, contentType: 'image/png' });
    const header = '<img src="a.png">'.repeat(60) + '<p style="background:url(a.png)"></p>'.repeat(60);
    const { templates } = await inlineTemplateResources([header, '<img src="a.png">'], {
      baseUrl: 'https://example.test/',
      fetcher,
      signal: new AbortController().signal,
    });
    expect(fetched).toEqual(['https://example.test/a.png']);
    const copy = png.toString('base64').length;
    // Once for the <img>s, once for url(); each <img>'s src is a 1x1 GIF of about a hundred characters.
    expect(templates[0]!.length).toBeLessThan(2 * copy + 2 * header.length + 60 * 120);
    expect(templates[1]!.length).toBeLessThan(copy + 2000);
  });
});

describe('bounds on what a request inlines', () => {
  it(`fails the render, naming the limit, when its images pass ${maxTemplateImageBytes / 1024 / 1024} MB together`, async () => {
    const dir = await folderWith({ 'a.png': paddedPng(6 * 1024 * 1024), 'b.png': paddedPng(6 * 1024 * 1024) });
    const request = parseRenderRequest({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<img src="a.png">',
      footerHtmlContent: '<img src="b.png">',
    });
    const error = await engine.render(request, { baseUrl: pathToFileURL(`${dir}/`).href }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PdfRenderError);
    expect((error as PdfRenderError).code).toBe('RENDER_PDF_FAILED');
    expect((error as PdfRenderError).message).toContain('larger than 10 MB together');
  });

  it('still renders images that fit the budget together', async () => {
    const dir = await folderWith({ 'a.png': paddedPng(4 * 1024 * 1024), 'b.png': paddedPng(4 * 1024 * 1024) });
    const request = parseRenderRequest({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<img src="a.png">',
      footerHtmlContent: '<img src="b.png">',
    });
    const result = await engine.render(request, { baseUrl: pathToFileURL(`${dir}/`).href });
    expect((await readPaint(result.pdf)).images).toBe(2);
  });

  it('leaves out a FIFO, a folder and a file past the size limit, without blocking on the FIFO', async () => {
    const dir = await folderWith({ 'logo.png': redPng, 'big.png': paddedPng(maxImageBytes + 1) });
    await mkdir(join(dir, 'folder'));
    expect(spawnSync('mkfifo', [join(dir, 'fifo')]).status).toBe(0);
    const request = parseRenderRequest({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<img src="fifo"><img src="folder"><img src="big.png"><img src="logo.png">',
    });
    const result = await engine.render(request, { baseUrl: pathToFileURL(`${dir}/`).href });
    expect((await readPaint(result.pdf)).images).toBe(1);
    const reasons = Object.fromEntries(
      result.network.failed.map(({ url, reason }) => [url.slice(url.lastIndexOf('/') + 1), reason]),
    );
    expect(reasons).toEqual({
      fifo: 'not a regular file',
      folder: 'a folder, not a file',
      'big.png': 'larger than 10 MiB',
    });
  });

  it('refuses a template with more than 10 distinct images as a validation error naming the field', () => {
    const header = Array.from({ length: 11 }, (_, i) => `<img src="https://example.test/${i}.png">`).join('');
    const error = (() => {
      try {
        parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: header });
      } catch (e) {
        return e as PdfRenderError;
      }
    })();
    expect(error?.code).toBe('VALIDATION_FAILED');
    expect(error?.fieldErrors?.headerHtmlContent?.[0]).toMatch(/11 distinct images; at most 10/);
    expect(() =>
      parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: header.replace('/10.png', '/0.png') }),
    ).not.toThrow();
  });
});
