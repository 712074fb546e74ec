/**
 * Header and footer templates that refer to style sheets, web fonts and everything else that would
 * load: Chromium prints templates without loading anything and fails the whole print over a style
 * sheet or font it would wait for. Through a real server and Chromium, with a real HTTP server on
 * loopback for the style sheets (allowed by --allow-host 127.0.0.1): the render succeeds, the
 * style sheets apply, and each reference that could not be honoured is reported once.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redPng, removeTempDirs } from './support/files.js';
import { readPaint, readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

// The documented bounds (README, Security defaults): @import followed 3 levels down, 20 more fetches for style sheets.
const maxImportDepth = 3;
const maxStylesheetFetches = 20;

interface Issue {
  url: string;
  code: string;
  reason: string;
}

const monoFont = readFileSync('/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf').toString('base64');
const chain = (level: number) =>
  `${level < maxImportDepth + 1 ? `@import "chain${level + 1}.css";` : ''} .c${level}::after { content: " LEVEL${level}"; }`;

// What the asset server answers, by path.
const assets: Record<string, { type: string; body: string | Buffer; status?: number }> = {
  '/brand.css': {
    type: 'text/css',
    body: '@import "imported.css"; .brand::after { content: " LINKED-SHEET"; } .logo { display: inline-block; width: 8px; height: 8px; background: url(logo.png) 0 0 / 8px 8px; } @font-face { font-family: Remote; src: url(remote.woff2) format("woff2"); }',
  },
  '/imported.css': { type: 'text/css', body: '.brand::before { content: "IMPORTED-SHEET "; }' },
  '/logo.png': { type: 'image/png', body: redPng },
  // Web fonts a template's own @font-face names: fetched and inlined like images.
  '/remote.woff2': { type: 'font/ttf', body: Buffer.from(monoFont, 'base64') },
  '/font.woff2': { type: 'font/ttf', body: Buffer.from(monoFont, 'base64') },
  // A shared style sheet with a font inlined as a data: URL, as a document and its header can both link it.
  '/fonts.css': {
    type: 'text/css',
    body: `@font-face { font-family: Brand; src: url(data:font/ttf;base64,${monoFont}); } .brand { font-family: Brand; }`,
  },
  '/missing.css': { type: 'text/css', body: '', status: 404 },
  '/page.html': { type: 'text/html', body: '<p>not a style sheet</p>' },
  '/cycle-a.css': { type: 'text/css', body: '@import url("cycle-b.css"); .a::after { content: " CYCLE-A"; }' },
  '/cycle-b.css': { type: 'text/css', body: '@import url("cycle-a.css"); .b::after { content: " CYCLE-B"; }' },
  '/many.css': {
    type: 'text/css',
    body: Array.from({ length: maxStylesheetFetches + 5 }, (_, i) => `.i${i} { background: url(img${i}.png); }`).join(
      '\n',
    ),
  },
  '/big.css': { type: 'text/css', body: `.big::after { content: "BIG"; } /* ${'x'.repeat(1_500_000)} */` },
  ...Object.fromEntries(
    Array.from({ length: maxImportDepth + 2 }, (_, level) => [
      `/chain${level}.css`,
      { type: 'text/css', body: chain(level) },
    ]),
  ),
  ...Object.fromEntries(
    Array.from({ length: maxStylesheetFetches + 5 }, (_, i) => [`/img${i}.png`, { type: 'image/png', body: redPng }]),
  ),
};

let server: TestServer;
let assetServer: Server;
let origin: string;
const hits: string[] = [];

beforeAll(async () => {
  assetServer = createServer((req, res) => {
    hits.push(req.url ?? '');
    const asset = assets[req.url ?? ''];
    if (!asset) return void res.writeHead(404).end();
    res.writeHead(asset.status ?? 200, { 'Content-Type': asset.type }).end(asset.body);
  });
  await new Promise<void>((resolve) => assetServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(assetServer.address() as AddressInfo).port}`;
  server = await startServer({ rateLimit: 100_000, allowHosts: ['127.0.0.1'] });
});

afterAll(async () => {
  await server?.close();
  assetServer?.close();
  await removeTempDirs();
});

/** Render through render-sync and return the status, the body, the warnings header and the PDF's first page. */
async function render(fields: Record<string, unknown>) {
  hits.length = 0;
  const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ marginTop: '1in', marginBottom: '1in', ...fields }),
  });
  const body = (await response.json()) as {
    fileUrl?: string;
    blocked?: Issue[];
    failed?: Issue[];
    message?: string;
    errors?: Record<string, string[]>;
  };
  const pdf = body.fileUrl ? new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer()) : null;
  const summary = pdf ? await readPdf(pdf) : null;
  return {
    status: response.status,
    body,
    warnings: response.headers.get('x-pdfrender-warnings') ?? '',
    pdf,
    text: summary?.pages[0]?.text ?? '',
    fontNames: summary?.fontNames ?? [],
  };
}

const codes = (issues: Issue[] | undefined) =>
  Object.fromEntries((issues ?? []).map(({ url, code }) => [url.replace(origin, ''), code]));
const reasons = (issues: Issue[] | undefined) =>
  Object.fromEntries((issues ?? []).map(({ url, reason }) => [url.replace(origin, ''), reason]));

describe('style sheets in a template', () => {
  it('applies a linked style sheet, what it imports, the image it shows and its web font', async () => {
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent: `<link rel="stylesheet" href="${origin}/brand.css"><span class="brand">Header</span><span class="logo"></span>`,
    });
    expect(result.status).toBe(200);
    expect(result.text).toContain('IMPORTED-SHEET Header LINKED-SHEET');
    expect((await readPaint(result.pdf!)).images).toBe(1);
    expect(result.body.blocked).toEqual([]);
    expect(result.body.failed).toEqual([]);
    // Fetched once each by pdfrender, the font too (template-fonts.test.ts shows it used).
    expect(hits.sort()).toEqual(['/brand.css', '/imported.css', '/logo.png', '/remote.woff2']);
  });

  it('prints the header in a font from a data: URL that the document uses too', async () => {
    const sheet = `<link rel="stylesheet" href="${origin}/fonts.css">`;
    const result = await render({
      htmlContent: `${sheet}<p class="brand">Body</p>`,
      headerHtmlContent: `${sheet}<span class="brand">Header</span>`,
    });
    expect(result.status).toBe(200);
    expect(result.text).toContain('Header');
    // Embedded fonts (subset names, "AAAAAA+Name"): the mono font only, for the body and the header.
    const embedded = result.fontNames.filter((name) => name.includes('+'));
    expect(embedded.length).toBeGreaterThan(0);
    expect(embedded.filter((name) => !name.endsWith('+DejaVuSansMono'))).toEqual([]);
  });

  it('follows @import in a <style> element, as a string or a url(), with media and layers kept', async () => {
    const header = `<style>@import "${origin}/imported.css" print; @import url(${origin}/cycle-a.css) layer(base); .late::after { content: " INLINE"; }</style><span class="brand">Header</span><span class="a"></span><span class="b"></span><span class="late"></span>`;
    const result = await render({ htmlContent: '<p>Body</p>', headerHtmlContent: header });
    expect(result.status).toBe(200);
    expect(result.text).toMatch(/IMPORTED-SHEET Header ?CYCLE-A ?CYCLE-B ?INLINE/);
    expect(reasons(result.body.failed)).toEqual({ '/cycle-a.css': 'imported by a style sheet it imports' });
  });

  it('leaves out what cannot be fetched, and renders the rest', async () => {
    const header =
      ['missing.css', 'page.html', 'brand.css']
        .map((name) => `<link rel="stylesheet" href="${origin}/${name}">`)
        .join('') +
      `<link rel="stylesheet" href="http://localhost:${origin.split(':')[2]}/brand.css"><span class="brand">Header</span>`;
    const result = await render({ htmlContent: '<p>Body</p>', headerHtmlContent: header });
    expect(result.status).toBe(200);
    expect(result.text).toContain('IMPORTED-SHEET Header LINKED-SHEET');
    expect(codes(result.body.failed)).toEqual({
      '/missing.css': 'HTTP_ERROR',
      '/page.html': 'LOAD_FAILED',
    });
    expect(reasons(result.body.failed)['/page.html']).toBe('not a style sheet (its type is not text/css)');
    expect(result.body.blocked?.map(({ url, code }) => [url, code])).toEqual([
      [`http://localhost:${origin.split(':')[2]}/brand.css`, 'NETWORK_POLICY'],
    ]);
  });
});

describe('every way a template refers to another file', () => {
  const u = (name: string) => `${origin}/${name}`;
  // Each entry: markup, and the URLs it must be reported under (none: inlined). Built once the asset server listens.
  const references = (): Array<[string, string[]]> => [
    [`<link rel="stylesheet" href="${u('imported.css')}">`, []],
    [
      `<link rel="preload" as="style" href="${u('preload.css')}"><link rel="prefetch" href="${u('prefetch.css')}"><link rel="modulepreload" href="${u('module.js')}"><link rel="icon" href="${u('icon.png')}">`,
      ['preload.css', 'prefetch.css', 'module.js', 'icon.png'],
    ],
    [
      `<style>@import "${u('brand.css')}"; @font-face { font-family: X; src: url(${u('font.woff2')}); } span { font-family: X; }</style>`,
      [],
    ],
    [
      `<script src="${u('script.js')}"></script><iframe src="${u('frame.html')}"></iframe><object data="${u('object.pdf')}"></object><embed src="${u('embed.swf')}">`,
      ['script.js', 'frame.html', 'object.pdf', 'embed.swf'],
    ],
    [
      `<video poster="${u('poster.png')}" src="${u('video.mp4')}"><source src="${u('source.webm')}"><track src="${u('track.vtt')}"></video><audio src="${u('audio.mp3')}"></audio>`,
      ['poster.png', 'video.mp4', 'source.webm', 'track.vtt', 'audio.mp3'],
    ],
    [
      `<img srcset="${u('one.png')} 1x, ${u('two.png')} 2x" src="${u('logo.png')}"><picture><source srcset="${u('picture.png')}"><img src="${u('logo.png')}"></picture><input type="image" src="${u('input.png')}">`,
      ['one.png', 'two.png', 'picture.png', 'input.png'],
    ],
    [
      `<svg width="8" height="8"><defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs><image href="${u('svg-image.png')}"/><image xlink:href="${u('xlink.png')}"/><use href="${u('sprite.svg')}#icon"/><use href="#g"/><rect width="8" height="8" fill="url(#g)" filter="url(${u('filter.svg')}#f)"/></svg>`,
      ['svg-image.png', 'xlink.png', 'sprite.svg#icon', 'filter.svg#f'],
    ],
    [
      `<div style="width:8px;height:8px;background-image:image-set('${u('img0.png')}' 1x);cursor:url(${u('img1.png')}),auto"></div><table background="${u('table.png')}"><tr><td>cell</td></tr></table>`,
      ['table.png'],
    ],
    [
      `<!-- <link rel="stylesheet" href="${u('commented.css')}"> --><span title="url(${u('title.png')})">see url(not-a-reference.png)</span>`,
      [],
    ],
  ];

  it('renders, loads nothing from Chromium, and reports each reference it could not honour once', async () => {
    // Boxes kept small: the header is cut to its margin, and a 300x150 frame would push the text out of it.
    const small = '<style>iframe, object, embed, video, audio, input { width: 4px; height: 4px; }</style>';
    const header =
      small +
      references()
        .map(([markup]) => markup)
        .join('') +
      '<span class="brand">Header</span>';
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent: header,
      footerHtmlContent: `<script src="${u('script.js')}"></script><span>Footer</span>`,
    });
    expect(result.status).toBe(200);
    expect(result.text).toContain('IMPORTED-SHEET Header LINKED-SHEET');
    expect(result.text).toContain('see url(not-a-reference.png)');
    expect(result.body.blocked).toEqual([]);
    const expected = references()
      .flatMap(([, urls]) => urls)
      .map((name) => `/${name}`);
    expect(Object.keys(codes(result.body.failed)).sort()).toEqual(expected.sort());
    expect(new Set(Object.values(codes(result.body.failed)))).toEqual(new Set(['TEMPLATE_UNSUPPORTED']));
    expect(result.warnings).toContain(`header and footer <script src> ${u('script.js')} was left out`);
    // pdfrender fetched the style sheets and images it inlines; nothing else was asked for.
    expect(new Set(hits)).toEqual(
      new Set(['/imported.css', '/brand.css', '/logo.png', '/img0.png', '/img1.png', '/font.woff2', '/remote.woff2']),
    );
  });
});

describe('bounds on what style sheets bring in', () => {
  it(`follows @import ${maxImportDepth} levels below the template's style sheet, and reports the next`, async () => {
    const spans = Array.from({ length: maxImportDepth + 2 }, (_, level) => `<span class="c${level}"></span>`).join('');
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent: `<link rel="stylesheet" href="${origin}/chain0.css">Header${spans}`,
    });
    expect(result.status).toBe(200);
    expect(result.text.replaceAll(' ', '')).toContain(
      `Header${Array.from({ length: maxImportDepth + 1 }, (_, level) => `LEVEL${level}`).join('')}`,
    );
    expect(result.text).not.toContain(`LEVEL${maxImportDepth + 1}`);
    expect(reasons(result.body.failed)).toEqual({
      [`/chain${maxImportDepth + 1}.css`]: `imported more than ${maxImportDepth} levels deep`,
    });
  });

  it(`fetches at most ${maxStylesheetFetches} images for style sheets, and reports the rest`, async () => {
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent: `<link rel="stylesheet" href="${origin}/many.css">Header`,
    });
    expect(result.status).toBe(200);
    expect(Object.values(reasons(result.body.failed))).toEqual(
      Array(5).fill(
        `more than ${maxStylesheetFetches} images and style sheets come from the header and footer style sheets`,
      ),
    );
    expect(hits.filter((hit) => hit.startsWith('/img'))).toHaveLength(maxStylesheetFetches);
  });

  it('fails the render, naming the limit, when a template would carry more than 1 MB of style sheets', async () => {
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent: `<link rel="stylesheet" href="${origin}/big.css">Header`,
    });
    expect(result.status).toBe(400);
    expect(result.body.message).toMatch(
      /style sheets come to 1.9 MB inlined, more than the 1 MB limit for one template/,
    );
  });

  it('refuses a template with more than 10 distinct style sheets as a validation error naming the field', async () => {
    const header = Array.from({ length: 11 }, (_, i) => `<link rel="stylesheet" href="${origin}/s${i}.css">`).join('');
    const result = await render({ htmlContent: '<p>Body</p>', footerHtmlContent: header });
    expect(result.status).toBe(422);
    expect(result.body.errors?.footerHtmlContent?.[0]).toMatch(/11 distinct style sheets; at most 10/);
    expect(hits).toEqual([]);
  });
});
