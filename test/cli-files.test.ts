/**
 * The CLI reads no file a document may not: header and footer images (a --request body is often
 * someone else's) follow the document's file rule, its own folder, and that rule holds through
 * symbolic links. Through the built CLI and real Chromium; `npm run build` first.
 */
import { execFileSync } from 'node:child_process';
import { readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pdfrender } from './support/cli.js';
import { folderWith, redPng, removeTempDirs } from './support/files.js';
import { readPaint, readPdf } from './support/pdf.js';

const secretText = 'TOPSECRET-5f1c';
let outside: string;

beforeAll(async () => {
  outside = await folderWith({ 'secret.txt': secretText, 'secret.png': redPng });
});

afterAll(removeTempDirs);

/** Render `body` with `pdfrender render --request` in `dir`, with --json and `flags`; the summary entry and the PDF. */
async function renderRequest(dir: string, body: Record<string, unknown>, flags: string[] = []) {
  await writeFile(join(dir, 'body.json'), JSON.stringify(body));
  const run = await pdfrender(['render', '--request', 'body.json', '-o', 'out.pdf', '--json', ...flags], { cwd: dir });
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  const entry = JSON.parse(run.stdout.toString()).documents[0] as { blocked: Array<{ url: string; reason: string }> };
  const pdf = new Uint8Array(await readFile(join(dir, 'out.pdf')));
  return { entry, pdf, blockedUrls: entry.blocked.map((issue) => issue.url) };
}

describe('header and footer images from a --request body', () => {
  it('refuses file: URLs outside the folder, with --block-network --disable-javascript too', async () => {
    const dir = await folderWith({});
    const secret = pathToFileURL(join(outside, 'secret.png')).href;
    const header = `<img src="${secret}" alt="" style="height:8px"><span style="display:inline-block;width:8px;height:8px;background:url(${secret}) 0 0/8px 8px"></span>Header`;
    const footer = `<span style="display:inline-block;width:8px;height:8px;background:url('${pathToFileURL(join(outside, 'secret.txt')).href}')"></span>Footer`;
    const { pdf, blockedUrls } = await renderRequest(
      dir,
      {
        htmlContent: '<p>Body</p>',
        headerHtmlContent: header,
        footerHtmlContent: footer,
        marginTop: '1in',
        marginBottom: '1in',
      },
      ['--block-network', '--disable-javascript'],
    );
    expect((await readPaint(pdf)).images).toBe(0);
    expect(blockedUrls).toEqual(expect.arrayContaining([secret, pathToFileURL(join(outside, 'secret.txt')).href]));
  });

  it('refuses a link inside the folder to a file outside it, and still prints an image inside the folder', async () => {
    const dir = await folderWith({ 'logo.png': redPng });
    await symlink(join(outside, 'secret.png'), join(dir, 'link.png'));
    const { pdf, blockedUrls } = await renderRequest(dir, {
      htmlContent: '<p>Body</p>',
      headerHtmlContent: '<img src="logo.png" style="height:8px">Header',
      footerHtmlContent: '<img src="link.png" alt="" style="height:8px">Footer',
      marginTop: '1in',
      marginBottom: '1in',
    });
    expect((await readPaint(pdf)).images).toBe(1); // the logo; the linked secret (alt="": nothing when missing) is not there
    expect(blockedUrls).toEqual([pathToFileURL(join(dir, 'link.png')).href]);
  });
});

describe('a document reaching through a symbolic link', () => {
  it('gets nothing from a link to a file outside its folder (img, iframe, fetch)', async () => {
    const dir = await folderWith({ 'own.txt': 'OWN-TEXT-77' });
    await symlink(join(outside, 'secret.txt'), join(dir, 'link.txt'));
    await symlink(join(outside, 'secret.png'), join(dir, 'link.png'));
    await symlink(outside, join(dir, 'linked-folder'));
    const html = `<p>Body</p><img src="link.png" alt=""><iframe src="link.txt"></iframe><iframe src="linked-folder/secret.txt"></iframe><iframe src="own.txt"></iframe>
      <p id="out"></p><script>fetch('link.txt').then((r) => r.text()).then((t) => { out.textContent = 'READ ' + t; }, () => { out.textContent = 'FETCH FAILED'; });</script>`;
    const { pdf, blockedUrls } = await renderRequest(dir, { htmlContent: html });
    const text = (await readPdf(pdf)).pages.map((page) => page.text).join(' ');
    expect(text).not.toContain(secretText);
    expect(text).toContain('OWN-TEXT-77'); // a file inside the folder still loads
    expect((await readPaint(pdf)).images).toBe(0);
    expect(blockedUrls).toEqual(
      expect.arrayContaining(
        ['link.png', 'link.txt', 'linked-folder/secret.txt'].map((name) => pathToFileURL(join(dir, name)).href),
      ),
    );
  });
});

describe('header and footer style sheets from a --request body', () => {
  it('inlines a style sheet in the folder and refuses one outside it, without failing the render', async () => {
    const secretSheet = await folderWith({ 'secret.css': `.h::after { content: "${secretText}"; }` });
    const outsideUrl = pathToFileURL(join(secretSheet, 'secret.css')).href;
    const dir = await folderWith({
      'header.css': `@import url("${outsideUrl}"); .h::before { content: "FOLDER-SHEET "; }`,
    });
    const { pdf, entry, blockedUrls } = await renderRequest(dir, {
      htmlContent: '<p>Body</p>',
      headerHtmlContent: '<link rel="stylesheet" href="header.css"><span class="h">Header</span>',
      footerHtmlContent: `<link rel="stylesheet" href="${outsideUrl}"><span class="h">Footer</span>`,
      marginTop: '1in',
      marginBottom: '1in',
    });
    const text = (await readPdf(pdf)).pages[0]!.text;
    expect(text).toContain('FOLDER-SHEET Header');
    expect(text).toContain('Footer');
    expect(text).not.toContain(secretText);
    expect(blockedUrls).toEqual([outsideUrl]);
    expect(entry.blocked[0]!.reason).toMatch(/outside the document's folder/);
  });
});

describe('a batch from several folders', () => {
  it("never hands a document another folder's file from the page's memory cache", async () => {
    // a/ loads its own image; b/ asks for a/'s: on the same page, straight after (one page).
    const a = await folderWith({ 'secret.png': redPng });
    const image = pathToFileURL(join(a, 'secret.png')).href;
    await writeFile(join(a, 'a.html'), '<img src="secret.png" style="width:100px;height:100px">');
    const b = await folderWith({ 'b.html': `<img src="${image}" style="width:100px;height:100px">` });
    const out = await folderWith({});
    const run = await pdfrender(
      ['render', join(a, 'a.html'), join(b, 'b.html'), '--out-dir', out, '--concurrency', '1', '--json'],
      { cwd: out },
    );
    expect(run.code).toBe(0);
    const [first, second] = JSON.parse(run.stdout.toString()).documents as Array<{ blocked: Array<{ url: string }> }>;
    expect(first!.blocked).toEqual([]);
    expect(second!.blocked.map((issue) => issue.url)).toEqual([image]);
    // The 2x2 image is in a's PDF only (b's shows Chromium's 14x16 broken-image icon in its place).
    const sizes = (name: string) =>
      execFileSync('pdfimages', ['-list', join(out, name)], { encoding: 'utf8' })
        .trim()
        .split('\n')
        .slice(2)
        .map((line) => line.trim().split(/\s+/).slice(3, 5).join('x'));
    expect(sizes('a.pdf')).toEqual(['2x2']);
    expect(sizes('b.pdf')).not.toContain('2x2');
  });
});
