/**
 * Every scan of caller text (templates) or of a PDF (which holds the document's title) must be
 * linear: each is fed about 1 MB of the worst input we could build. A quadratic scan takes minutes
 * on these, a linear one milliseconds, so the generous bound below tells them apart.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { countPdfPages } from '../src/engine/page-count.js';
import { distinctImageUrls, templateReferences, usesUrlClass } from '../src/engine/template-references.js';
import { parseRenderRequest } from '../src/request.js';

const size = 1024 * 1024;
const run = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
const generousMs = 2000;

function timed<T>(scan: () => T): { value: T; ms: number } {
  const started = performance.now();
  const value = scan();
  return { value, ms: performance.now() - started };
}

// Runs of every opening that a scanner might start from and never close.
const hostileTemplates = {
  'url(': run('url('),
  'url( with spaces': run('url(   '),
  'url("': run('url("'),
  "url('": run("url('"),
  'url(a': run('url(a'),
  'url(a then spaces': `${run('url(a')}${run(' ')}x`,
  'url("a" then spaces': run('url("a"   '),
  '<img': run('<img'),
  '<img src=': run('<img src='),
  '<img src="': run('<img src="'),
  '<img src= src=': `<img${run(' src= ')}`,
  'class=': run('class='),
  '<a class=': run('<a class='),
  '<a class="': run('<a class="'),
  '<<<': run('<'),
  'quotes': run('"\''),
};

describe('template scans are linear', () => {
  for (const [name, html] of Object.entries(hostileTemplates)) {
    it(`finds references in 1 MB of ${name}`, () => {
      const { ms } = timed(() => [templateReferences(html), distinctImageUrls(html), usesUrlClass(html)]);
      expect(ms).toBeLessThan(generousMs);
    });
  }

  it('validates a 512 KiB header of url( runs (the schema counts its images)', () => {
    const { ms } = timed(() => parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: hostileTemplates['url('].slice(0, 512 * 1024) }));
    expect(ms).toBeLessThan(generousMs);
  });
});

describe('template references', () => {
  it('finds img src and CSS url() in every quoting, once each', () => {
    const html = `<img alt=x src="a.png"><img src='b.png'><IMG SRC=c.png><div style="background:url( d.png )"></div><style>p{background:url('e.png')}</style><img src="url(f.png)">`;
    expect(templateReferences(html).map((r) => [r.kind, r.url, html.slice(r.start, r.end)])).toEqual([
      ['img', 'a.png', '"a.png"'],
      ['img', 'b.png', "'b.png'"],
      ['img', 'c.png', 'c.png'],
      ['css', 'd.png', 'url( d.png )'],
      ['css', 'e.png', "url('e.png')"],
      ['img', 'url(f.png)', '"url(f.png)"'],
    ]);
  });

  it('counts distinct images, leaving data: URIs out', () => {
    expect(distinctImageUrls('<img src="a.png"><img src="a.png"><p style="background:url(a.png)"></p><img src="data:image/png;base64,AA"><img src="b.png">')).toEqual(new Set(['a.png', 'b.png']));
  });

  it('tells the url class from a class that only contains the word', () => {
    expect(usesUrlClass('<span class="title url"></span>')).toBe(true);
    expect(usesUrlClass("<span class='url'></span>")).toBe(true);
    expect(usesUrlClass('<span class=url></span>')).toBe(true);
    expect(usesUrlClass('<span class="URL"></span>')).toBe(true);
    expect(usesUrlClass('<span class="my-url"></span><p style="background:url(x)"></p>')).toBe(false);
  });
});

describe('the PDF page count is linear', () => {
  // Chromium copies a document's <title> into the PDF; these stand for titles (and other text) an attacker chooses.
  const pdfs = {
    '<': run('<'),
    '<< /Type /Pages': run('<< /Type /Pages '),
    '<< /Type /Pages /Count 1': run('<< /Type /Pages /Count 1 '),
    '>>': run('>>'),
    '/Type /Pages without <<': `${run('/Type /Pages ')}>>`,
    '/Type then spaces': run('/Type          '),
    '/Count then spaces': run('/Count          '),
  };
  for (const [name, text] of Object.entries(pdfs)) {
    it(`counts pages in 1 MB of ${name}`, () => {
      const { ms } = timed(() => countPdfPages(Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Title (${text}) >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 3 /Kids [] >>\nendobj\n`, 'latin1')));
      expect(ms).toBeLessThan(generousMs);
    });
  }

  it('reads the root /Count whatever the key order', () => {
    const pdf = '1 0 obj\n<</Count 7 /Kids [3 0 R] /Type /Pages>>\nendobj\n3 0 obj\n<</Type /Pages /Parent 1 0 R /Count 4>>\nendobj\n4 0 obj\n<</Type /Page /Count 99>>\nendobj';
    expect(countPdfPages(Buffer.from(pdf, 'latin1'))).toBe(7);
  });
});

describe('length and quantity parsing is linear', () => {
  const spaces = ' '.repeat(size);
  for (const [name, value] of Object.entries({ 'spaces then junk': `1${spaces}!`, 'spaces, a unit, junk': `1${spaces}mm${spaces}!`, 'digits then junk': `${'1'.repeat(size)}!`, 'fraction then junk': `1.${'1'.repeat(size)} x!` })) {
    it(`rejects 1 MB of ${name} as marginTop`, () => {
      const { value: error, ms } = timed(() => {
        try {
          parseRenderRequest({ htmlContent: '<p>x</p>', marginTop: value });
        } catch (e) {
          return e as Error;
        }
      });
      expect(error?.message).toMatch(/failed validation/);
      expect(ms).toBeLessThan(generousMs);
    });
  }

  it('still reads lengths with spaces around them', () => {
    expect(parseRenderRequest({ htmlContent: '<p>x</p>', marginTop: '  72 pt ' }).marginTop).toBe(1);
  });
});
