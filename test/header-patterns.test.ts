/**
 * Headers and footers that obey their CSS (issue 29 §2): the common patterns of
 * fixtures/headers/, each rendered through real Chromium with fixtures/headers/document.html, land
 * where their CSS says, read off the PDF: the logo 20px (15pt) high however it is sized, whatever
 * is right-aligned or centred at the margin, the web font and the font size of the body.
 *
 * The page is Letter (612 x 792pt) with 1in margins, so a header box runs from x = 72 to 540pt and
 * from y = 720pt to the top of the page (792), a footer box from y = 0 to 72pt.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { readImages, readPdf, readTextFonts, type PaintedImage, type TextItem } from './support/pdf.js';

const folder = resolve('fixtures/headers');
const margin = 72;
const right = 612 - margin;
const header = { bottom: 792 - margin, top: 792 };
const footer = { bottom: 0, top: margin };

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
});

/** fixtures/headers/document.html printed with the pattern `file` as its header (or footer). */
async function render(file: string, side: 'header' | 'footer' = 'header') {
  const request = parseRenderRequest({
    htmlContent: readFileSync(`${folder}/document.html`, 'utf8'),
    [`${side}HtmlContent`]: readFileSync(`${folder}/${file}`, 'utf8'),
    marginTop: '1in',
    marginBottom: '1in',
    marginLeft: '1in',
    marginRight: '1in',
  });
  const result = await engine.render(request, { baseUrl: pathToFileURL(`${folder}/`).href });
  expect(result.warnings).toEqual([]);
  const pdf = await readPdf(result.pdf);
  expect(pdf.pages[0]!.width).toBeCloseTo(612, 0);
  return { pdf: result.pdf, pages: pdf.pages, images: await readImages(result.pdf) };
}

const item = (items: TextItem[], text: string) => {
  const found = items.find((candidate) => candidate.text.includes(text));
  expect(found, `"${text}" among ${JSON.stringify(items.map((candidate) => candidate.text))}`).toBeDefined();
  return found!;
};

// Within `box` (a header or footer's vertical extent) and inside the margins.
function expectInside(image: PaintedImage, box: { bottom: number; top: number }) {
  expect(image.x).toBeGreaterThanOrEqual(margin - 0.5);
  expect(image.x + image.width).toBeLessThanOrEqual(right + 0.5);
  expect(image.y).toBeGreaterThanOrEqual(box.bottom - 0.5);
  expect(image.y + image.height).toBeLessThanOrEqual(box.top + 0.5);
}

describe('a 240x80 logo sized 20px high prints 15pt high (45pt wide), however the template sizes it', () => {
  for (const [file, how] of [
    ['logo-attribute.html', 'height="20"'],
    ['logo-style.html', 'style="height: 20px"'],
    ['logo-class.html', 'a class rule in a <style>'],
    ['logo-stylesheet.html', 'max-height in a linked style sheet'],
  ] as const) {
    it(`${how} (${file}), the text beside it`, async () => {
      const { pages, images } = await render(file);
      expect(images).toHaveLength(1);
      const [logo] = images;
      expect(logo!.pixels).toEqual({ width: 240, height: 80 });
      expect(logo!.height).toBeCloseTo(15, 0);
      expect(logo!.width).toBeCloseTo(45, 0);
      expect(logo!.x).toBeCloseTo(margin, 0);
      expectInside(logo!, header);
      const name = item(pages[0]!.items, 'ACME Corporation');
      expect(name.x).toBeGreaterThan(logo!.x + logo!.width);
      expect(name.y).toBeGreaterThan(header.bottom);
    });
  }

  it('object-fit: contain in a 60px square (logo-object-fit.html): drawn 45 x 15pt, centred in a 45pt box', async () => {
    const { images } = await render('logo-object-fit.html');
    expect(images).toHaveLength(1);
    const [logo] = images;
    expect(logo!.width).toBeCloseTo(45, 0);
    expect(logo!.height).toBeCloseTo(15, 0);
    // The box is 45pt high from the header's top edge (15pt below the paper's, Chromium's own
    // inset); the image is its middle third.
    const boxTop = logo!.y + logo!.height + 15;
    expect(boxTop).toBeGreaterThan(header.bottom + 45);
    expect(boxTop).toBeLessThanOrEqual(header.top);
    expectInside(logo!, header);
  });
});

describe('text where its CSS puts it', () => {
  it('a block with text-align: right and no width ends at the right margin (right-aligned.html)', async () => {
    const { pages } = await render('right-aligned.html');
    const text = item(pages[0]!.items, 'Invoice INV-2026-0042');
    expect(text.x + text.width).toBeCloseTo(right, 0);
    expect(text.y).toBeGreaterThan(header.bottom);
  });

  it('a flex row with space-between and no width: logo at the left margin, title at the right (logo-and-title.html)', async () => {
    const { pages, images } = await render('logo-and-title.html');
    expect(images).toHaveLength(1);
    expect(images[0]!.x).toBeCloseTo(margin, 0);
    expect(images[0]!.height).toBeCloseTo(15, 0);
    expectInside(images[0]!, header);
    const title = item(pages[0]!.items, 'Invoice INV-2026-0042');
    expect(title.x + title.width).toBeCloseTo(right, 0);
  });

  it('a two-column table of width 100%: one column at each margin (two-columns.html)', async () => {
    const { pages } = await render('two-columns.html');
    const left = item(pages[0]!.items, 'ACME Corporation');
    const statement = item(pages[0]!.items, 'Statement, June 2026');
    // A cell's default padding is 1px (0.75pt).
    expect(left.x).toBeCloseTo(margin + 0.75, 0);
    expect(statement.x + statement.width).toBeCloseTo(right - 0.75, 0);
    expect(left.y).toBeCloseTo(statement.y, 1);
    expect(left.y).toBeGreaterThan(header.bottom);
  });

  it('"Page X of Y" centred in the footer on every page (page-numbers.html)', async () => {
    const { pages } = await render('page-numbers.html', 'footer');
    expect(pages).toHaveLength(2);
    for (const [index, page] of pages.entries()) {
      const line = item(page.items, `Page ${index + 1} of 2`);
      expect(line.x + line.width / 2).toBeCloseTo(306, 0);
      expect(line.y).toBeGreaterThan(footer.bottom);
      expect(line.y).toBeLessThan(footer.top);
    }
  });

  it("the document's web font, by family name (web-font.html)", async () => {
    const { pdf, pages } = await render('web-font.html');
    const heading = item(pages[0]!.items, 'Brand Serif heading');
    expect(heading.fontSize).toBeCloseTo(10.5, 1); // 14px
    const fonts = await readTextFonts(pdf);
    expect(fonts.find(({ text }) => text.includes('Brand Serif heading'))?.font).toBe('DejaVuSerif');
  });

  it("a font size in px prints as the body's would: 16px is 12pt (font-size.html)", async () => {
    const { pages } = await render('font-size.html');
    expect(item(pages[0]!.items, 'Sixteen pixels').fontSize).toBeCloseTo(12, 1);
    // The body's 20px heading, for comparison: 15pt.
    expect(item(pages[0]!.items, 'Header patterns').fontSize).toBeCloseTo(15, 1);
  });
});

describe('templates written for Chromium as it is keep printing as they did', () => {
  async function renderInline(side: 'header' | 'footer', html: string) {
    const request = parseRenderRequest({
      htmlContent: '<p>Body</p>',
      [`${side}HtmlContent`]: html,
      marginTop: '1in',
      marginBottom: '1in',
      marginLeft: '1in',
      marginRight: '1in',
    });
    const result = await engine.render(request);
    return (await readPdf(result.pdf)).pages[0]!.items;
  }

  it('several top-level elements stay a row: two halves side by side, a span pushed right by margin-left: auto', async () => {
    const halves = await renderInline(
      'header',
      '<div style="width: 50%">Left half</div><div style="width: 50%; text-align: right">Right half</div>',
    );
    expect(item(halves, 'Left half').y).toBeCloseTo(item(halves, 'Right half').y, 1);
    expect(item(halves, 'Left half').x).toBeCloseTo(margin, 0);
    expect(item(halves, 'Right half').x + item(halves, 'Right half').width).toBeCloseTo(right, 0);
    const pushed = await renderInline('footer', '<span>Left</span><span style="margin-left: auto">Pushed</span>');
    expect(item(pushed, 'Pushed').x + item(pushed, 'Pushed').width).toBeCloseTo(right, 0);
    expect(item(pushed, 'Pushed').y).toBeLessThan(footer.top);
  });

  it('a template that starts with text is one line of text: "Page <span class="pageNumber"></span> of ..." keeps its spaces', async () => {
    const items = await renderInline(
      'footer',
      '<style>#footer { justify-content: center; text-align: center; }</style>' +
        'Page <span class="pageNumber"></span> of <span class="totalPages"></span>',
    );
    const line = item(items, 'Page 1 of 1');
    expect(line.x + line.width / 2).toBeCloseTo(306, 0);
    expect(line.y).toBeLessThan(footer.top);
  });

  it('a footer of height: 100% centred with flex is still centred in the bottom margin', async () => {
    const items = await renderInline(
      'footer',
      '<div style="height: 100%; display: flex; align-items: center; justify-content: center">Centred</div>',
    );
    const text = item(items, 'Centred');
    // Where Chromium alone puts it (its baseline 48pt up, measured with and without pdfrender's
    // defaults): centred in the box Chromium gives the footer, which ends above the paper's edge.
    expect(text.y).toBeCloseTo(48, 0);
    expect(text.x + text.width / 2).toBeCloseTo(306, 0);
  });
});
