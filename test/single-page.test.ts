/**
 * singlePage (issue 28 §4): the whole document on one page as tall as its content, measured as
 * printing lays it out (the printable width over the scale, print media, a wider document shrunk),
 * plus the vertical margins, its forced page breaks ignored;
 * landscape, scale and the templates as on any page; past Chromium's tallest page the render fails
 * saying so; pageRanges and preferCssPageSize are refused with it; the next document on the same
 * pooled page is laid out in the window as before.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { pt, readPdf } from './support/pdf.js';

// One page, so every render reuses it.
const engine = createEngine({ executablePath, concurrency: 1 });
const cli = inProcessCli();
afterAll(async () => {
  await engine.close();
  await cli.close();
  await removeTempDirs();
});

/** Three blocks of 1000px: 2250pt of content. */
const tall = '<style>body { margin: 0 } div { height: 1000px }</style><div>one</div><div>two</div><div>three</div>';
/** The default margins, top and bottom, in points. */
const margins = 2 * 0.39 * pt.in;

async function render(fields: Record<string, unknown>) {
  const { pdf } = await engine.render(parseRenderRequest(fields));
  return (await readPdf(pdf)).pages;
}

describe('singlePage', () => {
  it('prints the document on one page as tall as its content and margins; without it, on several', async () => {
    const [page, ...more] = await render({ htmlContent: tall, singlePage: true });
    expect(more).toHaveLength(0);
    expect(page!.width).toBeCloseTo(8.5 * pt.in, 0);
    expect(Math.abs(page!.height - (3000 * pt.px + margins))).toBeLessThan(1.5);
    expect(page!.text).toBe('one two three');
    expect((await render({ htmlContent: tall })).length).toBe(4);
  });

  it.each([
    { case: 'scale 0.5', fields: { scale: 0.5 }, width: 8.5 * pt.in, height: 1500 * pt.px + margins },
    { case: 'landscape', fields: { landscape: true }, width: 11 * pt.in, height: 3000 * pt.px + margins },
    {
      case: 'a header and footer',
      fields: {
        marginTop: '1in',
        marginBottom: '1in',
        headerHtmlContent:
          '<p style="font-size: 10px">Page <span class="pageNumber"></span> of <span class="totalPages"></span></p>',
      },
      width: 8.5 * pt.in,
      height: 3000 * pt.px + 2 * pt.in,
      text: 'Page 1 of 1',
    },
  ])('minds $case', async ({ fields, width, height, text }) => {
    const pages = await render({ htmlContent: tall, singlePage: true, ...fields });
    expect(pages).toHaveLength(1);
    expect(pages[0]!.width).toBeCloseTo(width, 0);
    expect(Math.abs(pages[0]!.height - height)).toBeLessThan(1.5);
    if (text) expect(pages[0]!.text).toContain(text);
  });

  it('minds a document wider than the page, which Chromium lays out wider (up to 1.5 times) and shrinks', async () => {
    // 1200px against 741.12px: laid out at 1111.68px, so the 3000px block prints 2000px (1500pt) tall.
    const wide = '<style>body { margin: 0 } div { width: 1200px; height: 3000px }</style><div>wide</div>';
    const pages = await render({ htmlContent: wide, singlePage: true });
    expect(pages).toHaveLength(1);
    expect(Math.abs(pages[0]!.height - (2000 * pt.px + margins))).toBeLessThan(1.5);
  });

  it("ignores the document's forced page breaks, and the next document on the page keeps its own", async () => {
    const breaking =
      '<style>.next { break-before: page !important }</style><section style="break-after: page">one</section>' +
      '<section style="page-break-after: always">two</section><section class="next">three</section>';
    const pages = await render({ htmlContent: breaking, singlePage: true });
    expect(pages.map((page) => page.text)).toEqual(['one two three']);
    expect((await render({ htmlContent: breaking })).map((page) => page.text)).toEqual(['one', 'two', 'three']);
  });

  it('measures under the media the document prints with', async () => {
    const html =
      '<style>body { margin: 0 } div { height: 500px } @media print { div { height: 2000px } }</style><div>x</div>';
    const [print] = await render({ htmlContent: html, singlePage: true });
    expect(Math.abs(print!.height - (2000 * pt.px + margins))).toBeLessThan(1.5);
    const [screen] = await render({ htmlContent: html, singlePage: true, emulatedMediaType: 'screen' });
    expect(Math.abs(screen!.height - (500 * pt.px + margins))).toBeLessThan(1.5);
  });

  it("fails past Chromium's tallest page, and leaves the window as it was for the next document", async () => {
    const error = await engine
      .render(parseRenderRequest({ htmlContent: '<div style="height: 40000000px"></div>', singlePage: true }))
      .catch((caught: unknown) => caught);
    expect(isPdfRenderError(error, 'RENDER_PDF_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(
      /singlePage: the document is at least \d+in tall .*tallest page Chromium prints/,
    );
    const window = {
      htmlContent:
        '<p id="w"></p><script>w.textContent = `W=${innerWidth}x${innerHeight} ${matchMedia("print").matches}`</script>',
    };
    const [before] = await render(window);
    await render({ htmlContent: tall, singlePage: true });
    const [after] = await render(window);
    expect(after!.text).toMatch(/^W=\d+x\d+ false$/);
    expect(after!.text).toBe(before!.text);
  });

  it('counts the one page as the pages of its paper it is as tall as, against the page limit', async () => {
    // 3000px of content and the margins on Letter (1056px a page): as tall as 3 pages.
    const limited = createEngine({ executablePath, concurrency: 1, maxPages: 2 });
    try {
      const error = await limited
        .render(parseRenderRequest({ htmlContent: tall, singlePage: true }))
        .catch((caught: unknown) => caught);
      expect(isPdfRenderError(error, 'RENDER_PDF_FAILED')).toBe(true);
      expect((error as Error).message).toBe(
        'singlePage: the document is as tall as 3 pages of its paper, past the page limit of 2',
      );
      // Two of its pages tall fit.
      const { pages } = await limited.render(
        parseRenderRequest({ htmlContent: tall.replace('1000px', '600px'), singlePage: true }),
      );
      expect(pages).toBe(1);
    } finally {
      await limited.close();
    }
  });

  it('is the --single-page flag of pdfrender render', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'tall.html'), tall);
    const run = await cli.run(['render', join(dir, 'tall.html'), '-o', join(dir, 'tall.pdf'), '-q', '--single-page']);
    expect(run.stderr).toBe('');
    const pages = (await readPdf(await readFile(join(dir, 'tall.pdf')))).pages;
    expect(pages).toHaveLength(1);
    expect(Math.abs(pages[0]!.height - (3000 * pt.px + margins))).toBeLessThan(1.5);
  });

  it('refuses pageRanges and preferCssPageSize with it, naming them', () => {
    let fields: string[] = [];
    try {
      parseRenderRequest({ htmlContent: tall, singlePage: true, pageRanges: '1', preferCssPageSize: true });
    } catch (error) {
      if (isPdfRenderError(error, 'VALIDATION_FAILED')) fields = Object.keys(error.fieldErrors ?? {});
    }
    expect(fields).toEqual(['pageRanges', 'preferCssPageSize']);
  });
});
