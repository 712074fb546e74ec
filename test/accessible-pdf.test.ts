/**
 * Accessible by default (issue 30 §1): a render with no tagging options asked is tagged, and carries
 * what PDF/UA-1 asks beyond the tags: the language, the title shown as the window's, the PDF/UA
 * identification in its XMP, the header and footer as artifacts, an outline of the headings. Read
 * off the PDF by pdfjs (structure tree, marked content, outline, XMP) and qpdf (the catalog, and
 * --check), neither of which is the code under test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import type { RenderRequestInput } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { pageMcids, readTagging, structNodes } from './support/pdf-tagging.js';
import { qpdfCheck, qpdfObjects } from './support/pdf-tools.js';

const dot = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==';
const invoice = `<!doctype html><html lang="de"><head><title>Rechnung 42</title></head><body>
<h1>Rechnung</h1><p>Vielen Dank für Ihren Auftrag.</p>
<h2>Positionen</h2>
<table><thead><tr><th>Artikel</th><th>Preis</th></tr></thead><tbody><tr><td>Stift</td><td>2,00</td></tr></tbody></table>
<img src="${dot}" alt="Firmenlogo" width="40" height="40">
<h2 style="break-before: page">Bedingungen</h2><p>Zahlbar in 30 Tagen.</p>
</body></html>`;
const header = '<div style="font-size: 10px">KOPFZEILE <span class="pageNumber"></span></div>';
const footer = '<div style="font-size: 10px">FUSSZEILE <span class="totalPages"></span></div>';

let engine: Engine;
beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 1 });
});
afterAll(async () => {
  await engine.close();
});

const render = (request: RenderRequestInput) => engine.render(request);
const catalogOf = (pdf: Uint8Array) => qpdfObjects(pdf).catalog;

describe('a render with no tagging options asked', () => {
  let pdf: Uint8Array;
  let report: Awaited<ReturnType<Engine['render']>>['report'];
  beforeAll(async () => {
    ({ pdf, report } = await render({ htmlContent: invoice, headerHtmlContent: header, footerHtmlContent: footer }));
  });

  it('is tagged: headings, paragraphs, a table with header cells, a figure with its alt text', async () => {
    const { pages } = await readTagging(pdf);
    const nodes = pages.flatMap((page) => structNodes(page.structure));
    const text = (role: string) => nodes.filter((node) => node.role === role).map((node) => node.text);
    expect(text('H1')).toEqual(['Rechnung']);
    expect(text('H2')).toEqual(['Positionen', 'Bedingungen']);
    expect(text('TH')).toEqual(['Artikel', 'Preis']);
    expect(text('TD')).toEqual(['Stift', '2,00']);
    expect(nodes.some((node) => node.role === 'Table')).toBe(true);
    expect(nodes.filter((node) => node.role === 'Figure').map((node) => node.alt)).toEqual(['Firmenlogo']);
    expect(nodes.map((node) => node.text).join(' ')).toContain('Vielen Dank für Ihren Auftrag.');
  });

  it('marks the header and footer as artifacts, out of the structure tree, on every page', async () => {
    const { pages } = await readTagging(pdf);
    expect(pages).toHaveLength(2);
    for (const [index, page] of pages.entries()) {
      expect(page.artifacts.join(' ')).toMatch(new RegExp(`KOPFZEILE\\s*${index + 1}`));
      expect(page.artifacts.join(' ')).toMatch(/FUSSZEILE\s*2/);
      expect(page.untagged).toEqual([]);
      const treeText = structNodes(page.structure)
        .map((node) => node.text)
        .join(' ');
      expect(treeText).not.toMatch(/KOPFZEILE|FUSSZEILE/);
    }
    // The body's text is all in marked content the structure tree points to.
    expect(pages[1]!.tagged.join(' ')).toContain('Zahlbar in 30 Tagen.');
  });

  it('has its language, its title as the window title, and the PDF/UA identification in its XMP', async () => {
    const catalog = catalogOf(pdf);
    expect(catalog['/Lang']).toBe('u:de');
    expect(catalog['/ViewerPreferences']).toMatchObject({ '/DisplayDocTitle': true });
    expect(catalog['/MarkInfo']).toMatchObject({ '/Marked': true });
    const { xmp } = await readTagging(pdf);
    expect(xmp).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
    expect(xmp).toMatch(/<dc:title>.*Rechnung 42.*<\/dc:title>/s);
    expect(xmp).toMatch(/<dc:language>.*<rdf:li>de<\/rdf:li>.*<\/dc:language>/s);
    expect(report.accessibility).toEqual({ tagged: true, pdfua: true, missing: [] });
  });

  it('has an outline of its headings, each going to its page', async () => {
    const { outline } = await readTagging(pdf);
    expect(outline).toEqual([
      { title: 'Rechnung', page: 1 },
      { title: 'Positionen', page: 1 },
      { title: 'Bedingungen', page: 2 },
    ]);
  });

  it('passes qpdf --check', () => {
    expect(qpdfCheck(pdf)).toMatchObject({
      status: 0,
      output: expect.stringMatching(/No syntax or stream encoding errors/),
    });
  });
});

it("keeps page 1's content in the structure tree when page 1 has templates of its own", async () => {
  const { pdf } = await render({
    htmlContent: invoice,
    headerHtmlContent: header,
    firstPageHeaderHtmlContent: '<div style="font-size: 10px">ERSTE SEITE</div>',
  });
  const { pages } = await readTagging(pdf);
  expect(pages[0]!.artifacts.join(' ')).toContain('ERSTE SEITE');
  expect(pages[0]!.artifacts.join(' ')).not.toContain('KOPFZEILE');
  expect(pages[1]!.artifacts.join(' ')).toMatch(/KOPFZEILE\s*2/);
  const page1 = structNodes(pages[0]!.structure);
  expect(page1.filter((node) => node.role === 'H1').map((node) => node.text)).toEqual(['Rechnung']);
  expect(page1.filter((node) => node.role === 'TH').map((node) => node.text)).toEqual(['Artikel', 'Preis']);
  expect(pages[0]!.untagged).toEqual([]);
  // The structure tree points into page 1's own content stream (marked content in a form it draws
  // could not be found by its ID): it holds the same marked content as page 1 printed plainly.
  const plain = await render({ htmlContent: invoice, headerHtmlContent: header });
  expect(pageMcids(pdf)[0]).toEqual(pageMcids(plain.pdf)[0]);
  expect(pageMcids(pdf)[0]!.length).toBeGreaterThan(5);
});

it("takes the request's lang where <html> has none, and says what a document without a title lacks", async () => {
  const { pdf, report } = await render({ htmlContent: '<h1>Hello</h1><p>No title here.</p>', lang: 'en-GB' });
  expect(catalogOf(pdf)['/Lang']).toBe('u:en-GB');
  const { xmp, pages } = await readTagging(pdf);
  expect(xmp).toMatch(/<dc:language>.*<rdf:li>en-GB<\/rdf:li>.*<\/dc:language>/s);
  // PDF/UA requires a title: a document without one does not claim the identification.
  expect(xmp).not.toMatch(/pdfuaid/);
  expect(report.accessibility).toEqual({ tagged: true, pdfua: false, missing: ['title'] });
  expect(pages[0]!.tagged.join(' ')).toContain('No title here.');
});

it("a document's own lang wins over the request's; a document with neither is reported", async () => {
  const own = await render({ htmlContent: '<html lang="fr"><title>T</title><p>Bonjour</p></html>', lang: 'de' });
  expect(catalogOf(own.pdf)['/Lang']).toBe('u:fr');
  const neither = await render({ htmlContent: '<title>T</title><p>Hello</p>' });
  expect(neither.report.accessibility).toEqual({ tagged: true, pdfua: true, missing: ['lang'] });
  expect((await readTagging(neither.pdf)).xmp).not.toMatch(/dc:language/);
});

it('metadata.title gives the title a document lacks, in the Info dictionary and the XMP alike', async () => {
  const { pdf, report } = await render({
    htmlContent: '<html lang="fr"><h1>Bonjour</h1></html>',
    metadata: { title: 'Facture été' },
  });
  const { xmp } = await readTagging(pdf);
  expect(xmp).toMatch(/<dc:title>.*Facture été.*<\/dc:title>/s);
  expect(xmp).toMatch(/<pdfuaid:part>1<\/pdfuaid:part>/);
  expect(report.accessibility.pdfua).toBe(true);
  expect(qpdfObjects(pdf).info['/Title']).toBe('u:Facture été');
});

it('tagged: false writes an untagged PDF without the identification', async () => {
  const { pdf, report } = await render({ htmlContent: invoice, tagged: false, outline: false });
  expect(catalogOf(pdf)['/MarkInfo']).toBeUndefined();
  const { pages, xmp, outline } = await readTagging(pdf);
  expect(pages.every((page) => page.structure === null)).toBe(true);
  expect(xmp).toBe('');
  expect(outline).toEqual([]);
  expect(report.accessibility).toEqual({ tagged: false, pdfua: false, missing: [] });
});
