/**
 * Repeated header and footer templates laid over pages printed without them (issue 31 §4): the
 * second render of the same templates is stamped, and its PDF is the same to a reader as
 * Chromium's own print: the same text in the same places (pdfjs), the same fonts (pdffonts), the
 * same pixels (poppler), the templates marked as artifacts and the rest tagged as before (pdfjs),
 * a clean file (qpdf).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { renderFile } from '../src/engine/render-file.js';
import { layStamp, prepareStamp } from '../src/engine/document/template-stamp.js';
import type { RenderRequestInput } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readPdf } from './support/pdf.js';
import { readTagging } from './support/pdf-tagging.js';
import { qpdfCheck, qpdfObjects, withFile } from './support/pdf-tools.js';

const header = 'fixtures/invoice/header.html';
const footer = 'fixtures/invoice/footer.html';
const invoice = (fields: Omit<RenderRequestInput, 'htmlContent'> = {}) =>
  renderFile(engine, 'fixtures/invoice/invoice.html', fields, { header, footer });

let engine: Engine;
beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1 });
});
afterAll(async () => {
  await engine.close();
});

// How many pages draw the stamp (its form in their resources), read by qpdf.
function stampedPages(pdf: Uint8Array): number {
  const { pages } = JSON.parse(
    withFile(pdf, (file) => execFileSync('qpdf', ['--json=2', '--json-key=pages', file], { encoding: 'utf8' })),
  ) as { pages: { object: string }[] };
  const { resolve } = qpdfObjects(pdf);
  return pages.filter((page) => {
    const resources = resolve((resolve(page.object) as Record<string, never>)['/Resources']) as Record<string, never>;
    const xobjects = resolve(resources?.['/XObject']) as Record<string, unknown> | undefined;
    return xobjects !== undefined && '/PdfrenderTemplates' in xobjects;
  }).length;
}

// The fonts pdffonts lists, without their subset tags (AAAAAA+), once each.
const fontNames = (pdf: Uint8Array): string[] =>
  withFile(pdf, (file) => execFileSync('pdffonts', [file], { encoding: 'utf8' }))
    .split('\n')
    .slice(2)
    .map((line) => line.split(/\s+/)[0]!.replace(/^[A-Z]{6}\+/, ''))
    .filter(Boolean)
    .sort()
    .filter((name, index, names) => names.indexOf(name) === index);

// Each page's link annotations as pdfjs reads them: where each goes and its rectangle.
async function links(pdf: Uint8Array): Promise<string[]> {
  const document = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false }).promise;
  try {
    const pages: string[] = [];
    for (let number = 1; number <= document.numPages; number += 1) {
      const annotations = (await (await document.getPage(number)).getAnnotations()) as {
        subtype: string;
        url?: string;
        rect: number[];
      }[];
      const described = annotations
        .filter((annotation) => annotation.subtype === 'Link')
        .map((annotation) => `${annotation.url} ${annotation.rect.map((value) => value.toFixed(1)).join(',')}`);
      pages.push(described.join('; '));
    }
    return pages;
  } finally {
    await document.destroy();
  }
}

// Each page drawn by poppler, in grey at 36 dpi, as PGM bytes.
const pageImages = (pdf: Uint8Array): Buffer[] =>
  withFile(pdf, (file, folder) => {
    execFileSync('pdftoppm', ['-r', '36', '-gray', file, join(folder, 'page')]);
    return readdirSync(folder)
      .filter((name) => name.endsWith('.pgm'))
      .sort()
      .map((name) => readFileSync(join(folder, name)));
  });

/** Where `actual` differs from `expected` for a reader: each page's text and places (within 0.5 pt), its fonts, its pixels, its tagging and structure tree. */
async function differences(expected: Uint8Array, actual: Uint8Array): Promise<string[]> {
  const [want, got] = await Promise.all([readPdf(expected), readPdf(actual)]);
  const found: string[] = [];
  if (want.pages.length !== got.pages.length) return [`${got.pages.length} pages, not ${want.pages.length}`];
  for (const [index, page] of want.pages.entries()) {
    const items = got.pages[index]!.items;
    if (items.length !== page.items.length)
      found.push(`page ${index + 1}: ${items.length} text items, not ${page.items.length}`);
    for (const item of page.items) {
      const near = items.find(
        (other) =>
          other.text === item.text &&
          Math.abs(other.x - item.x) <= 0.5 &&
          Math.abs(other.y - item.y) <= 0.5 &&
          Math.abs(other.fontSize - item.fontSize) <= 0.01,
      );
      if (!near) found.push(`page ${index + 1}: "${item.text}" is not at ${item.x.toFixed(2)}, ${item.y.toFixed(2)}`);
    }
  }
  if (fontNames(actual).join() !== fontNames(expected).join())
    found.push(`fonts ${fontNames(actual).join()}, not ${fontNames(expected).join()}`);
  const [wantLinks, gotLinks] = await Promise.all([links(expected), links(actual)]);
  for (const [index, page] of wantLinks.entries())
    if (gotLinks[index] !== page) found.push(`page ${index + 1}: links ${gotLinks[index]}, not ${page}`);
  for (const [index, image] of pageImages(actual).entries())
    if (!image.equals(pageImages(expected)[index]!)) found.push(`page ${index + 1} looks different (poppler, 36 dpi)`);
  const [wantTags, gotTags] = await Promise.all([readTagging(expected), readTagging(actual)]);
  for (const [index, page] of wantTags.pages.entries()) {
    const other = gotTags.pages[index]!;
    if (JSON.stringify(other.structure) !== JSON.stringify(page.structure))
      found.push(`page ${index + 1}: another structure tree`);
    for (const key of ['artifacts', 'tagged', 'untagged'] as const)
      if (other[key].join('|') !== page[key].join('|'))
        found.push(`page ${index + 1}: ${key} ${other[key].join('|')}, not ${page[key].join('|')}`);
  }
  return found;
}

// `request` rendered three times: the templates are Chromium's every time (the second time found not to fit a stamp).
async function expectChromiumsEveryTime(request: RenderRequestInput): Promise<void> {
  const chromium = (await engine.render(request)).pdf;
  for (let again = 0; again < 2; again += 1) {
    const { pdf } = await engine.render(request);
    expect(stampedPages(pdf)).toBe(0);
    expect(await differences(chromium, pdf)).toEqual([]);
  }
}

describe('the same header and footer rendered again', () => {
  let chromium: Uint8Array;
  let stamped: Uint8Array;
  beforeAll(async () => {
    chromium = (await invoice()).pdf;
    stamped = (await invoice()).pdf;
  });

  it('are laid over the pages the second time, not printed by Chromium on each', () => {
    expect(stampedPages(chromium)).toBe(0);
    expect(stampedPages(stamped)).toBe(2);
  });

  it('give the PDF Chromium prints: the same text in the same places, fonts and tagging', async () => {
    expect(await differences(chromium, stamped)).toEqual([]);
    const { pages } = await readTagging(stamped);
    expect(pages.map((page) => page.artifacts)).toEqual([
      ['Acme Ltd', 'Invoice INV-2026-0042', 'Page 1 of 2'],
      ['Acme Ltd', 'Invoice INV-2026-0042', 'Page 2 of 2'],
    ]);
    expect(qpdfCheck(stamped).status).toBe(0);
  });

  it('are as Chromium prints them untagged too', async () => {
    const untagged = { tagged: false, outline: false };
    const first = (await invoice(untagged)).pdf;
    const second = (await invoice(untagged)).pdf;
    expect(stampedPages(second)).toBe(2);
    expect(await differences(first, second)).toEqual([]);
    expect((await readTagging(second)).pages.flatMap((page) => page.artifacts)).toEqual([]);
  });

  it('number the pages of documents of other lengths as their own', async () => {
    const letter = (pages: number) => ({
      htmlContent: Array.from(
        { length: pages },
        (_, index) =>
          `<p style="${index ? 'break-before: page' : ''}">Part ${index + 1}, <a href="https://example.com/${index}">its notes</a></p>`,
      ).join(''),
      footerHtmlContent:
        '<div style="text-align: right">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
    });
    const reference = (await engine.render(letter(3))).pdf;
    for (const pages of [1, 3, 2, 3]) {
      const { pdf } = await engine.render(letter(pages));
      expect(stampedPages(pdf)).toBe(pages);
      const footers = (await readTagging(pdf)).pages.map((page) => page.artifacts.join(' '));
      expect(footers).toEqual(Array.from({ length: pages }, (_, index) => `Page ${index + 1} of ${pages}`));
      if (pages === 3) expect(await differences(reference, pdf)).toEqual([]);
      expect((await links(pdf)).at(-1)).toMatch(/^https:\/\/example.com\/\d /);
    }
  });

  it('are printed by Chromium again when the pages differ in size from the stamp (a named landscape page)', async () => {
    const request = {
      htmlContent: '<style>@page wide { size: landscape; } p + p { page: wide; }</style><p>One</p><p>Two</p>',
      headerHtmlContent: '<div style="background: #fde">Head <span class="pageNumber"></span></div>',
    };
    await expectChromiumsEveryTime(request);
  });

  it('are stamped when they name an installed font family, and printed by Chromium where the document declares it', async () => {
    const letter = '<p>One</p><p style="break-before: page">Two</p>';
    const header =
      '<div style="font-family: \'DejaVu Serif\', serif">Serif header <span class="pageNumber"></span></div>';
    const chromium = (await engine.render({ htmlContent: letter, headerHtmlContent: header })).pdf;
    const stamped = (await engine.render({ htmlContent: letter, headerHtmlContent: header })).pdf;
    expect(stampedPages(stamped)).toBe(2);
    expect(await differences(chromium, stamped)).toEqual([]);
    expect(fontNames(stamped)).toContain('DejaVuSerif');

    // The same family declared by the document: the template is printed in the document's face.
    const face = readFileSync('fixtures/report/fonts/DejaVuSerif.ttf').toString('base64');
    const declared = `<style>@font-face { font-family: "Brand Serif"; src: url(data:font/ttf;base64,${face}); }</style>${letter}`;
    const branded = {
      htmlContent: declared,
      headerHtmlContent: '<div style="font-family: \'Brand Serif\'">Brand</div>',
    };
    await expectChromiumsEveryTime(branded);
  });

  it('are printed by Chromium every time when they print what differs per document: the date, the title', async () => {
    for (const template of ['<span class="date"></span>', '<span class="title"></span>']) {
      const request = { htmlContent: '<title>A</title><p>Text</p>', headerHtmlContent: template };
      await engine.render(request);
      expect(stampedPages((await engine.render(request)).pdf)).toBe(0);
    }
  });
});

describe('a stamp laid over the wrong pages', () => {
  it("is told apart from Chromium's print by the comparison above", async () => {
    const untagged = { tagged: false, outline: false };
    const letter = '<p>Part 1</p><p style="break-before: page">Part 2</p>';
    const templates = {
      headerHtmlContent: '<div>Checked header</div>',
      footerHtmlContent:
        '<div style="text-align: center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>',
    };
    const body = (await engine.render({ htmlContent: letter, ...untagged })).pdf;
    // An engine that has not seen these templates: Chromium prints them both times.
    const fresh = createEngine({ executablePath, concurrency: 1 });
    try {
      const chromium = (await fresh.render({ htmlContent: letter, ...templates, ...untagged })).pdf;
      // The templates alone, as the engine prints them for a stamp: two blank pages.
      const blank = '<div style="height: 1px"></div><div style="height: 1px; break-before: page"></div>';
      const stamp = prepareStamp((await fresh.render({ htmlContent: blank, ...templates, ...untagged })).pdf)!;
      expect(await differences(chromium, layStamp(body, stamp, false)!)).toEqual([]);
      const swapped = { ...stamp, pages: [...stamp.pages].reverse() };
      const wrong = await differences(chromium, layStamp(body, swapped, false)!);
      expect(wrong.some((difference) => difference.startsWith('page 1: "Page 1 of 2" is not at'))).toBe(true);
      expect(wrong).toContain('page 1 looks different (poppler, 36 dpi)');
    } finally {
      await fresh.close();
    }
  });
});
