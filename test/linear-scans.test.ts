/**
 * Every scan of caller text (templates) or of a PDF (which holds the document's title) must be
 * linear: each is fed about 1 MB of the worst input we could build. A quadratic scan takes minutes
 * on these, a linear one milliseconds, so the generous bound below tells them apart.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { countPdfPages } from '../src/engine/page-count.js';
import { stylesheetReferences, templateFetches, templateReferences, usesUrlClass } from '../src/engine/template-references.js';
import { parseRenderRequest } from '../src/request.js';

const size = 1024 * 1024;
const run = (unit: string) => unit.repeat(Math.ceil(size / unit.length));
// Generous because CI machines are shared (a linear scan took 2.7 s once at load average 8): a
// quadratic scan of 1 MB takes minutes, so 15 s still tells them apart.
const generousMs = 15_000;

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
  quotes: run('"\''),
  // Markup as a parser reads it: comments, raw text, attributes, foreign content.
  '<!--': run('<!--'),
  '<!-->': run('<!-->'),
  '<a b': run('<a b'),
  '<a b="': run('<a b="'),
  "<a b='x' ": run("<a b='x' "),
  'one tag, one attribute repeated': `<a${run(' b')}>`,
  'one tag, attributes with values': `<a${run(' b=c')}`,
  '<svg>': run('<svg>'),
  '</svg>': run('</svg>'),
  '<svg><style/>': `<svg>${run('<style/>')}`,
  '<style/>': run('<style/>'),
  '<iframe>': run('<iframe>'),
  '<link rel=stylesheet href=': run('<link rel=stylesheet href='),
  '<img srcset="a, ': `<img srcset="${run('a, ')}">`,
  '<img srcset with commas': `<img srcset="a${run(',')}b">`,
  '<img srcset=': run('<img srcset=a,'),
  'style attribute of url(': `<p style="${run('url(')}">`,
  'fill of url(#a)': `<rect fill="${run('url(#a) ')}">`,
  // CSS as a tokenizer reads it, in <style> elements: one long one, and many small ones.
  '<style></style>': run('<style></style>'),
  '<style>url(</style>': run('<style>url(</style>'),
  '<style>"</style>': run('<style>"</style>'),
  '<style> of @import': `<style>${run('@import ')}`,
  '<style> of @import "': `<style>${run('@import "')}`,
  '<style> of @import url(': `<style>${run('@import url(')}`,
  '<style> of @font-face{': `<style>${run('@font-face{')}`,
  '<style> of @font-face{url(': `<style>${run('@font-face{url(')}`,
  '<style> of image-set(': `<style>${run('image-set(')}`,
  '<style> of image-set("': `<style>${run('image-set("')}`,
  '<style> of /*': `<style>${run('/*')}`,
  '<style> of "\\': `<style>${run('"\\')}`,
  '<style> of url("a" then spaces': `<style>${run('url("a"   ')}`,
  '<style> of {': `<style>${run('{')}`,
  '<style> of }(': `<style>${run('}(')}`,
};

// The same for a fetched style sheet, which is scanned as CSS alone.
const hostileSheets = {
  'url(': run('url('),
  'url("': run('url("'),
  'url(a': run('url(a'),
  '@import ': run('@import '),
  '@import url(': run('@import url('),
  "@import '": run("@import '"),
  '@font-face{url(': run('@font-face{url('),
  'image-set(': run('image-set('),
  "image-set('": run("image-set('"),
  '/*': run('/*'),
  'backslashes in a string': `"${run('\\')}`,
};

describe('template scans are linear', () => {
  for (const [name, html] of Object.entries(hostileTemplates)) {
    it(`finds references in 1 MB of ${name}`, () => {
      const { ms } = timed(() => [templateReferences(html), templateFetches(html), usesUrlClass(html)]);
      expect(ms).toBeLessThan(generousMs);
    });
  }

  for (const [name, css] of Object.entries(hostileSheets)) {
    it(`finds references in a 1 MB style sheet of ${name}`, () => {
      const { ms } = timed(() => stylesheetReferences(css));
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

  it('finds style sheets, web fonts and everything else that would load, each as its own kind', () => {
    const html = [
      '<link rel="stylesheet" href="a.css"><link rel=preload href="b.css"><LINK REL="Alternate StyleSheet" HREF=c.css>',
      '<style>@import "d.css" print; @import url(e.css); @font-face { src: url(f.woff2) format("woff2") } p { background: image-set("g.png" 1x, url(h.png) 2x) }</style>',
      '<script src="i.js"></script><iframe src="j.html"><img src="in-iframe.png"></iframe><video poster="k.png"></video><object data="l.pdf"></object>',
      '<img srcset="m.png 1x, n.png 2x" src="o.png"><svg><image href="p.png"/><use xlink:href="q.svg#x"/><use href="#local"/><rect fill="url(#g)" filter="url(r.svg#f)"/></svg>',
    ].join('');
    expect(templateReferences(html).map((r) => [r.kind, r.what, r.url])).toEqual([
      ['stylesheet', 'stylesheet', 'a.css'],
      ['other', '<link rel=preload>', 'b.css'],
      ['stylesheet', 'stylesheet', 'c.css'],
      ['stylesheet', 'stylesheet', 'd.css'],
      ['stylesheet', 'stylesheet', 'e.css'],
      ['font', 'font', 'f.woff2'],
      ['css', 'image', 'g.png'],
      ['css', 'image', 'h.png'],
      ['other', '<script src>', 'i.js'],
      ['other', '<iframe src>', 'j.html'],
      ['other', '<video poster>', 'k.png'],
      ['other', '<object data>', 'l.pdf'],
      ['other', '<img srcset>', 'm.png'],
      ['img', 'image', 'o.png'],
      ['other', '<image href>', 'p.png'],
      ['other', '<use xlink:href>', 'q.svg#x'],
      ['other', 'filter="url()"', 'r.svg#f'],
    ]);
    expect(templateReferences(html).find((r) => r.what === '<img srcset>')?.candidates).toEqual(['m.png', 'n.png']);
  });

  it('finds nothing in comments, in text, in strings or in attributes that load nothing', () => {
    const html =
      '<!-- <link rel="stylesheet" href="a.css"> --><p title="url(b.png)">see url(c.png)</p><a href="d.html">link</a><style>/* url(e.png) */ p::after { content: "url(f.png)" }</style><textarea><img src="g.png"></textarea>';
    expect(templateReferences(html)).toEqual([]);
  });

  it('counts distinct images, leaving data: URIs out', () => {
    expect(
      templateFetches('<img src="a.png"><img src="a.png"><p style="background:url(a.png)"></p><img src="data:image/png;base64,AA"><img src="b.png">').images,
    ).toEqual(new Set(['a.png', 'b.png']));
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
      const { ms } = timed(() =>
        countPdfPages(Buffer.from(`%PDF-1.4\n1 0 obj\n<< /Title (${text}) >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 3 /Kids [] >>\nendobj\n`, 'latin1')),
      );
      expect(ms).toBeLessThan(generousMs);
    });
  }

  it('reads the root /Count whatever the key order', () => {
    const pdf =
      '1 0 obj\n<</Count 7 /Kids [3 0 R] /Type /Pages>>\nendobj\n3 0 obj\n<</Type /Pages /Parent 1 0 R /Count 4>>\nendobj\n4 0 obj\n<</Type /Page /Count 99>>\nendobj';
    expect(countPdfPages(Buffer.from(pdf, 'latin1'))).toBe(7);
  });
});

describe('length and quantity parsing is linear', () => {
  const spaces = ' '.repeat(size);
  for (const [name, value] of Object.entries({
    'spaces then junk': `1${spaces}!`,
    'spaces, a unit, junk': `1${spaces}mm${spaces}!`,
    'digits then junk': `${'1'.repeat(size)}!`,
    'fraction then junk': `1.${'1'.repeat(size)} x!`,
  })) {
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
