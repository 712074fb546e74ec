/**
 * Page references (issue 30 §2): `content: target-counter(attr(href), page)` on a link's ::after,
 * which Chromium drops, printed with the page each target starts on in the PDF; a second print when
 * the numbers move a target; targets that do not exist named in the report; pageRanges counting the
 * whole document's pages; @page margin boxes' counter(page) and counter(pages); a linked sheet read
 * for the CLI; and a document without any of it printed as before. The pages are read from the
 * PDF's text with pdfjs, never from pdfrender's own reading of it.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { destinationPages } from '../src/engine/pages/pdf-destinations.js';
import { referenceRules } from '../src/engine/pages/target-counter-css.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf, readingOrder, type PdfPage } from './support/pdf.js';
import { startServer } from './support/server.js';
import type { RenderReport } from '../src/engine/report/render-report.js';
import { readFile } from 'node:fs/promises';

const engine = createEngine({ executablePath, concurrency: 1 });
const cli = inProcessCli();
afterAll(async () => {
  await engine.close();
  await cli.close();
  await removeTempDirs();
});

const fixtures = join(import.meta.dirname, '../fixtures/toc');
const tocStyle = 'nav a::after { content: " page " target-counter(attr(href), page) }';

/** A table of contents over `count` sections of uneven length (1 to 3 pages each), then the sections. */
function tocDocument(count: number, style = tocStyle): string {
  const entries = Array.from({ length: count }, (_, i) => `<li><a href="#s${i}">Chapter ${i}</a></li>`).join('');
  const sections = Array.from(
    { length: count },
    (_, i) => `<h2 id="s${i}">Chapter ${i} begins</h2><div style="height: ${400 + ((i * 397) % 1700)}px"></div>`,
  ).join('');
  return `<style>${style} h2 { break-inside: avoid; margin: 0 }</style><nav><ol>${entries}</ol></nav>${sections}`;
}

/** A page's text without its spaces: where pdfjs splits items (around a pseudo-element's text, in a tagged PDF) varies. */
const squeezed = (page: PdfPage) => readingOrder(page).replace(/\s+/g, '');

/** The page (from 1) each "Chapter N begins" heading is printed on. */
function headingPages(pages: PdfPage[]): Map<number, number> {
  const found = new Map<number, number>();
  pages.forEach((page, index) => {
    for (const match of readingOrder(page).matchAll(/Chapter (\d+) begins/g)) found.set(Number(match[1]), index + 1);
  });
  return found;
}

/** The numbers the table of contents prints, by chapter ("??" for none). */
function tocNumbers(pages: PdfPage[]): Map<number, string> {
  const text = pages.map(readingOrder).join(' ');
  return new Map([...text.matchAll(/Chapter (\d+) page\s*(\d+|\?\?)/g)].map((m) => [Number(m[1]), m[2]!]));
}

describe('page references', () => {
  it('prints a table of contents over 24 sections and 30+ pages with the page each section starts on', async () => {
    const { pdf, report } = await engine.render({ htmlContent: tocDocument(24) });
    const { pages } = await readPdf(pdf);
    expect(pages.length).toBeGreaterThanOrEqual(30);
    const starts = headingPages(pages);
    const numbers = tocNumbers(pages);
    expect(starts.size).toBe(24);
    expect(numbers.size).toBe(24);
    for (const [chapter, page] of starts) expect(numbers.get(chapter), `chapter ${chapter}`).toBe(String(page));
    // The sections do not all start on consecutive pages: the numbers are read, not counted.
    expect(new Set(starts.values()).size).toBeLessThan(pages.length);
    expect(report.pageReferences).toEqual({ passes: 2, settled: true, unresolved: [] });
  });

  it('prints again when writing the numbers in moves a section to the next page', async () => {
    // The entry's line has room for "Chapter 0" alone: with its number it wraps onto a second line,
    // which pushes chapter 0's heading (page 1 in the first print) onto page 2.
    const printable = (11 - 2 * 0.39) * 96;
    const html = `<style>${tocStyle} body { margin: 0 } nav { font: 16px/20px serif }
      nav p { margin: 0; width: 260px } nav span { display: inline-block; width: 180px }
      h2 { margin: 0; height: 40px; font: 16px/40px serif; break-inside: avoid }</style>
      <div style="height: ${Math.floor(printable - 70)}px"></div>
      <nav><p><span></span><a href="#s0">Chapter 0</a></p></nav>
      <h2 id="s0">Chapter 0 begins</h2>`;
    const { pdf, report } = await engine.render({ htmlContent: html });
    const { pages } = await readPdf(pdf);
    expect(headingPages(pages).get(0)).toBe(2);
    expect(tocNumbers(pages).get(0)).toBe('2');
    expect(report.pageReferences).toEqual({ passes: 3, settled: true, unresolved: [] });
  });

  it('names a target that does not exist and prints "??" for it', async () => {
    const html = `${tocDocument(2)}<nav><a href="#appendix">Chapter 9</a> <a href="#s1">Chapter 1</a>
      <a href="constructor">Chapter 8</a></nav>`;
    const { pdf, report } = await engine.render({ htmlContent: html });
    const numbers = tocNumbers((await readPdf(pdf)).pages);
    expect(numbers.get(9)).toBe('??');
    expect(numbers.get(8)).toBe('??');
    expect(numbers.get(1)).toMatch(/^\d+$/);
    expect(report.pageReferences).toMatchObject({ passes: 2, unresolved: ['#appendix', 'constructor'] });
  });

  it('keeps the rest of the content value, and reads attr(href url), a counter style and a literal url()', async () => {
    const style = `.see::after { content: " (see page " target-counter(attr(href url), page, upper-roman) ")" }
      .fixed::after { content: "[" target-counter(url(#s1), page) "]" }`;
    const html = `${tocDocument(3, style)}<p><a class="see" href="#s2">Chapter 2</a> <span class="fixed">one</span></p>`;
    const { pdf } = await engine.render({ htmlContent: html });
    const { pages } = await readPdf(pdf);
    const starts = headingPages(pages);
    const last = squeezed(pages.at(-1)!);
    expect(last).toContain(`Chapter2(seepage${['I', 'II', 'III', 'IV'][starts.get(2)! - 1]})`);
    expect(last).toContain(`one[${starts.get(1)}]`);
  });

  it('writes ::before and ::marker, another attribute whose target a link has, and "??" for a hidden target', async () => {
    const html = `<style>a::after { content: " p" target-counter(attr(href), page) }
      .d::before { content: "[" target-counter(attr(data-ref), page) "]" }
      li::marker { content: target-counter(attr(data-ref), page) ". " } h2 { break-before: page }</style>
      <a href="#b">to b</a> <a href="#hidden">to hidden</a> <span class="d" data-ref="#c">dref</span>
      <ol><li data-ref="#b">marker</li></ol><a href="#c">to c</a>
      <h2 id="b">B</h2><h2 id="c">C</h2><div id="hidden" style="display: none">h</div>`;
    const { pdf, report } = await engine.render({ htmlContent: html });
    const { pages } = await readPdf(pdf);
    expect(pages.map(squeezed)).toEqual(['tobp2tohiddenp??[3]dref2.markertocp3', 'B', 'C']);
    expect(report.pageReferences).toEqual({ passes: 2, settled: true, unresolved: ['#hidden'] });
    // On one page, every target is on page 1.
    const single = await engine.render({ htmlContent: html, singlePage: true });
    expect(squeezed((await readPdf(single.pdf)).pages[0]!)).toContain('tobp1tohiddenp??[1]dref1.markertocp1');
  });

  it('prints page 1 with its own header with the numbers in too (page 1 is printed apart for it)', async () => {
    const { pdf } = await engine.render({
      htmlContent: tocDocument(3),
      firstPageHeaderHtmlContent: '<span style="font-size: 10px">FIRST</span>',
      headerHtmlContent: '<span style="font-size: 10px">EVERY</span>',
    });
    const { pages } = await readPdf(pdf);
    expect(squeezed(pages[0]!)).toContain('FIRST');
    const numbers = tocNumbers(pages);
    expect(numbers.size).toBe(3);
    for (const [chapter, page] of headingPages(pages)) expect(numbers.get(chapter)).toBe(String(page));
  });

  it('counts the pages of the whole document when pageRanges prints part of it', async () => {
    const { pdf, report } = await engine.render({ htmlContent: tocDocument(6), pageRanges: '1' });
    const whole = headingPages((await readPdf((await engine.render({ htmlContent: tocDocument(6) })).pdf)).pages);
    const { pages } = await readPdf(pdf);
    expect(pages).toHaveLength(1);
    const numbers = tocNumbers(pages);
    expect(numbers.size).toBe(6);
    for (const [chapter, page] of whole) expect(numbers.get(chapter)).toBe(String(page));
    expect(report.pageReferences?.unresolved).toEqual([]);
  });

  it('prints a document without target-counter once, with no pageReferences in its report', async () => {
    const { pdf, report } = await engine.render({ htmlContent: tocDocument(3, 'nav a::after { content: "!" }') });
    expect(report.pageReferences).toBeUndefined();
    expect(tocNumbers((await readPdf(pdf)).pages).size).toBe(0);
  });

  it("leaves nothing of its numbers to the page's next document", async () => {
    await engine.render({ htmlContent: tocDocument(2) });
    // The numbers are attributes pdfrender sets (data-pdfrender-page-<rule>-<k>) that its sheet reads:
    // a next document with such attributes of its own would show them if the sheet were still there.
    const next = tocDocument(2, '').replace('<a href="#s0">', '<a href="#s0" data-pdfrender-page-0-0="7">');
    const { pdf } = await engine.render({ htmlContent: next });
    expect(tocNumbers((await readPdf(pdf)).pages).size).toBe(0);
  });

  it("prints @page margin boxes' counter(page) and counter(pages) (Chromium's own)", async () => {
    const html = `<style>@page { @bottom-right { content: "Page " counter(page) " of " counter(pages) } }
      div { break-after: page }</style><div>one</div><div>two</div><div>three</div>`;
    const { pages } = await readPdf((await engine.render({ htmlContent: html })).pdf);
    expect(pages.map(readingOrder)).toEqual(['one Page 1 of 3', 'two Page 2 of 3', 'three Page 3 of 3']);
  });

  it('reads the references from a sheet a linked sheet imports (the CLI, files beside the document)', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'main.css'), '@import url("toc.css");\nbody { color: #222 }');
    await writeFile(join(dir, 'toc.css'), tocStyle);
    await writeFile(join(dir, 'toc.html'), `<link rel="stylesheet" href="main.css">${tocDocument(4, '')}`);
    // Twice: the second render may find the sheets in Chromium's memory cache.
    for (const round of [1, 2]) {
      const run = await cli.run(['render', join(dir, 'toc.html'), '-o', join(dir, 'toc.pdf'), '--json']);
      expect(run.code, run.stderr).toBe(0);
      const { report } = JSON.parse(run.stdout.toString()).documents[0];
      // Nothing loaded again to read the sheets (the document's folder URL was, by Page.getResourceContent).
      expect(report.resources.failed, `round ${round}`).toEqual([]);
      expect(report.pageReferences, `round ${round}`).toEqual({ passes: 2, settled: true, unresolved: [] });
      const { pages } = await readPdf(await readFile(join(dir, 'toc.pdf')));
      const numbers = tocNumbers(pages);
      expect(numbers.size).toBe(4);
      for (const [chapter, page] of headingPages(pages)) expect(numbers.get(chapter)).toBe(String(page));
    }
  });
});

describe('the handbook fixture (fixtures/toc)', () => {
  it('prints its contents, its "see page" references and its page footers as the PDF has them', async () => {
    const dir = await tempDir();
    const out = join(dir, 'handbook.pdf');
    const run = await cli.run(['render', join(fixtures, 'handbook.html'), '-o', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      'page references to #appendix printed "??": no such element is printed in the document',
    );
    const { pages } = await readPdf(await readFile(out));
    const texts = pages.map(readingOrder);
    expect(pages.length).toBeGreaterThanOrEqual(30);
    const html = await readFile(join(fixtures, 'handbook.html'), 'utf8');
    const titles = [...html.matchAll(/<li><a href="#ch(\d+)">([^<]+)<\/a><\/li>/g)].map((m) => `${m[1]}. ${m[2]}`);
    expect(titles).toHaveLength(24);
    for (const title of titles) {
      // The chapter's own heading: the first page after the contents that has it.
      const page = texts.findIndex((text, index) => index > 0 && text.includes(title)) + 1;
      expect(page, title).toBeGreaterThan(1);
      expect(texts[0], title).toContain(`${title} ${page}`);
    }
    const webhooks = texts.findIndex((text, index) => index > 0 && text.includes('14. Webhooks')) + 1;
    expect(texts[0]).toContain(`Webhooks (see page ${webhooks})`);
    // (readingOrder drops the space before punctuation, "?" included.)
    expect(texts[0]).toMatch(/Glossary \(see page ?\?\?\)/);
    texts.forEach((text, index) => expect(text).toContain(`Page ${index + 1} of ${pages.length}`));
  });
});

describe('over HTTP', () => {
  it("render-sync prints the numbers and answers the report's pageReferences (the docs' curl body)", async () => {
    const server = await startServer({}, { engine });
    try {
      const doc = await readFile(join(import.meta.dirname, '../docs/page-references.md'), 'utf8');
      const body = /render-sync .* -d '(\{"htmlContent".*\})'$/m.exec(doc)![1]!;
      const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('x-pdfrender-warnings')).toBeNull();
      const json = (await response.json()) as { fileUrl: string; report: RenderReport };
      expect(json.report.pageReferences).toEqual({ passes: 2, settled: true, unresolved: [] });
      const { pages } = await readPdf(new Uint8Array(await (await fetch(json.fileUrl)).arrayBuffer()));
      expect(pages.map(readingOrder)).toEqual(['The end (page 2)', 'The end']);
    } finally {
      await server.close();
    }
  });
});

describe('a url document (its own page and a sheet from another origin, over http)', () => {
  // Loopback allowed, for the site.
  const open = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
  const requests: string[] = [];
  const huge = `/* ${'x'.repeat(4_100_000)} */ ${tocStyle}`;
  const site = createServer((req, res) => {
    requests.push(req.url ?? '');
    const other = `http://127.0.0.2:${(site.address() as AddressInfo).port}`;
    if (req.url === '/toc.css') return void res.writeHead(200, { 'Content-Type': 'text/css' }).end(tocStyle);
    if (req.url === '/huge.css') return void res.writeHead(200, { 'Content-Type': 'text/css' }).end(huge);
    const sheet = req.url === '/huge' ? 'huge.css' : 'toc.css';
    res
      .writeHead(200, { 'Content-Type': 'text/html' })
      .end(`<link rel="stylesheet" href="${other}/${sheet}">${tocDocument(3, '')}`);
  });
  beforeAll(() => new Promise<void>((resolve) => site.listen(0, '0.0.0.0', resolve)));
  afterAll(async () => {
    await open.close();
    site.close();
  });
  const render = async (path: string) => {
    requests.length = 0;
    const url = `http://127.0.0.1:${(site.address() as AddressInfo).port}${path}`;
    const { pdf, report } = await open.render({ url });
    const { pages } = await readPdf(pdf);
    return { pages, report, requests: [...requests] };
  };

  it('reads the sheet from what the page loaded, the second time from its memory cache, and loads nothing again', async () => {
    for (const round of [1, 2]) {
      const { pages, report, requests } = await render('/page');
      // The page once; the sheet at most once (the second render may take it from the memory cache).
      expect(
        requests.filter((path) => path === '/page'),
        `round ${round}`,
      ).toHaveLength(1);
      expect(requests.filter((path) => path === '/toc.css').length).toBeLessThanOrEqual(1);
      expect(report.pageReferences, `round ${round}`).toEqual({ passes: 2, settled: true, unresolved: [] });
      const numbers = tocNumbers(pages);
      expect(numbers.size).toBe(3);
      for (const [chapter, page] of headingPages(pages)) expect(numbers.get(chapter)).toBe(String(page));
    }
  });

  it('does not read a sheet over 4 million characters (the bound on what is read)', async () => {
    const { pages, report } = await render('/huge');
    expect(report.pageReferences).toBeUndefined();
    expect(tocNumbers(pages).size).toBe(0);
  });
});

describe('reading them', () => {
  it('finds the rules in CSS text: inside @media, several selectors, the last content declaration', () => {
    const css = `/* a { content: target-counter(attr(href), page) } */
      @media print { nav a::after, .x:before { content: "a"; content: "p. " target-counter(attr(href), page) !important } }
      a { color: red } p::after { content: target-counter(attr(data-ref), chapter) }`;
    expect(referenceRules([css], 10)).toEqual([
      {
        selectors: [
          { base: 'nav a', pseudo: 'after' },
          { base: '.x', pseudo: 'before' },
        ],
        parts: [{ css: '"p. " ' }, { target: { attr: 'href' }, style: 'decimal' }],
      },
    ]);
  });

  it('reads a destination named like a PDF keyword, and the ones after it', async () => {
    const html = `<style>${tocStyle} h2 { break-before: page }</style><nav><a href="#endobj">Chapter 1</a>
      <a href="#zz">Chapter 2</a></nav><h2 id="endobj">Chapter 1 begins</h2><h2 id="zz">Chapter 2 begins</h2>`;
    const { pdf } = await engine.render({ htmlContent: html });
    expect(destinationPages(pdf)).toEqual(
      new Map([
        ['endobj', 2],
        ['zz', 3],
      ]),
    );
  });

  it('reads them through an incremental update (pdfrender writing the metadata in after the print)', async () => {
    const { pdf } = await engine.render({ htmlContent: tocDocument(3), metadata: { title: 'Handbook' } });
    const starts = headingPages((await readPdf(pdf)).pages);
    const dests = destinationPages(pdf)!;
    expect(new Map([...dests].map(([name, page]) => [Number(name.slice(1)), page]))).toEqual(starts);
  });

  it("reads the named destinations' pages from Chromium's PDF (its page tree and /Dests)", async () => {
    const { pdf } = await engine.render({ htmlContent: tocDocument(5) });
    const starts = headingPages((await readPdf(pdf)).pages);
    const dests = destinationPages(pdf)!;
    expect(new Map([...dests].map(([name, page]) => [Number(name.slice(1)), page]))).toEqual(starts);
  });
});
