/**
 * Header and footer templates drawn in web fonts (issue 28 §1). Chromium draws a template in a
 * document of its own that loads nothing, and uses a web font there only when the page has loaded
 * the very same URL; pdfrender writes the fonts into the templates as data: URLs and loads them
 * into the page first. Through real Chromium, read off the PDF: the template's text is there and
 * drawn with the web font, with no glyph missing. The fonts are this machine's DejaVu Serif faces,
 * which nothing here draws with by default, loaded under family names of the test's own; each test
 * has a face of its own, since a renderer keeps the fonts it loaded for the next documents.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { parseRenderRequest, type RenderRequestInput } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { pdfrender } from './support/cli.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { readGlyphs, readTextFonts } from './support/pdf.js';

// A face of DejaVu Serif, named by its file and PostScript name.
function face(postscriptName: string) {
  const bytes = readFileSync(`/usr/share/fonts/truetype/dejavu/${postscriptName}.ttf`);
  return { postscriptName, bytes, dataUrl: `data:font/ttf;base64,${bytes.toString('base64')}` };
}
const cliFont = face('DejaVuSerif-Italic');
const bodyFont = face('DejaVuSerifCondensed-Italic');
const ownUrlFont = face('DejaVuSerif-BoldItalic');
const ownDataFont = face('DejaVuSerifCondensed-BoldItalic');

let fontServer: Server;
let origin: string;
let fontHits = 0;
let server: Engine; // as the server renders: no files, the network open to the font server only

beforeAll(async () => {
  fontServer = createServer((request, response) => {
    if (request.url !== '/own.ttf') return void response.writeHead(404).end();
    fontHits += 1;
    response.writeHead(200, { 'Content-Type': 'font/ttf' }).end(ownUrlFont.bytes);
  });
  await new Promise<void>((resolve) => fontServer.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(fontServer.address() as AddressInfo).port}`;
  server = createEngine({
    executablePath,
    concurrency: 1,
    timeoutMs: 20_000,
    files: 'none',
    network: { network: 'public', allowHosts: ['127.0.0.1'] },
  });
});

afterAll(async () => {
  await server?.close();
  fontServer?.close();
  await removeTempDirs();
});

/** The fonts that drew each piece of text containing `text`. */
const fontsOf = async (pdf: Uint8Array, text: string) =>
  (await readTextFonts(pdf)).filter((item) => item.text.includes(text)).map((item) => item.font);

/** Glyphs drawn as the empty box (.notdef), in every font. */
const missingGlyphs = async (pdf: Uint8Array) => (await readGlyphs(pdf)).reduce((sum, drawn) => sum + drawn.notdef, 0);

const render = (input: Partial<RenderRequestInput>) =>
  server.render(parseRenderRequest({ marginTop: '1in', marginBottom: '1in', ...input }));

describe("the document's web fonts in its templates", () => {
  it('for the CLI: a font file beside the document, used by the footer through the body @font-face', async () => {
    const dir = await folderWith({
      'letter.html':
        '<style>@font-face { font-family: "Brand Face"; src: url("brand.ttf") format("truetype"); } p { font-family: "Brand Face", sans-serif; }</style><p>Body in the brand font</p>',
      'footer.html': '<div style="font-family: \'Brand Face\', sans-serif">Footer in the brand font</div>',
      'plain.html': '<div>Footer in the installed font</div>',
      'brand.ttf': cliFont.bytes,
    });
    const run = await pdfrender(['render', 'letter.html', '-o', 'letter.pdf', '--footer', 'footer.html'], { cwd: dir });
    expect(run.code, run.stderr).toBe(0);
    const pdf = await readFile(join(dir, 'letter.pdf'));
    expect(await fontsOf(pdf, 'Footer in the brand font')).toEqual([cliFont.postscriptName]);
    expect(await fontsOf(pdf, 'Body in the brand font')).toEqual([cliFont.postscriptName]);
    expect(await missingGlyphs(pdf)).toBe(0);
    // A footer that names no web font keeps the installed one.
    const plain = await pdfrender(['render', 'letter.html', '-o', 'plain.pdf', '--footer', 'plain.html'], { cwd: dir });
    expect(plain.code, plain.stderr).toBe(0);
    const plainFonts = await fontsOf(await readFile(join(dir, 'plain.pdf')), 'Footer in the installed font');
    expect(plainFonts).toHaveLength(1);
    expect(plainFonts).not.toContain(cliFont.postscriptName);
  });

  it("for the server: a data: URL font of the body, used by the header and page 1's own header", async () => {
    const result = await render({
      htmlContent: `<style>@font-face { font-family: Brand; src: url(${bodyFont.dataUrl}); } p { font-family: Brand; break-after: page; }</style><p>Page one</p><p>Page two</p>`,
      headerHtmlContent: '<style>.h { font-family: Brand, serif; }</style><div class="h">Running header</div>',
      firstPageHeaderHtmlContent: '<div style="font: italic 12px Brand">Letterhead</div>',
    });
    expect(result.warnings).toEqual([]);
    expect(await fontsOf(result.pdf, 'Running header')).toEqual([bodyFont.postscriptName]);
    expect(await fontsOf(result.pdf, 'Letterhead')).toEqual([bodyFont.postscriptName]);
    expect(await missingGlyphs(result.pdf)).toBe(0);
  });

  it("a template's own @font-face, with a URL or a data: URL the document does not use", async () => {
    fontHits = 0;
    const result = await render({
      htmlContent: '<p>A body in the default font</p>',
      headerHtmlContent: `<style>@font-face { font-family: Own; src: url("${origin}/own.ttf"); }</style><div style="font-family: Own">Header in its own font</div>`,
      footerHtmlContent: `<style>@font-face { font-family: Inline; src: url(${ownDataFont.dataUrl}); }</style><div style="font-family: Inline">Footer in its own font</div>`,
    });
    expect(result.warnings).toEqual([]);
    expect(result.network).toEqual({ blocked: [], failed: [] });
    expect(fontHits).toBe(1);
    expect(await fontsOf(result.pdf, 'Header in its own font')).toEqual([ownUrlFont.postscriptName]);
    expect(await fontsOf(result.pdf, 'Footer in its own font')).toEqual([ownDataFont.postscriptName]);
    expect(await fontsOf(result.pdf, 'A body in the default font')).toHaveLength(1);
    expect(await missingGlyphs(result.pdf)).toBe(0);
  });

  it('a font the server may not fetch is left out with a warning, and the header prints in the installed font', async () => {
    const result = await render({
      htmlContent: '<p>Body</p>',
      headerHtmlContent:
        '<style>@font-face { font-family: Far; src: url("http://10.255.255.1/far.ttf"); }</style><div style="font-family: Far">Header without its font</div>',
    });
    expect(result.network.blocked.map((issue) => issue.url)).toEqual(['http://10.255.255.1/far.ttf']);
    expect(await fontsOf(result.pdf, 'Header without its font')).toHaveLength(1);
    expect(await missingGlyphs(result.pdf)).toBe(0);
  });
});
