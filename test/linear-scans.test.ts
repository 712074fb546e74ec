/**
 * Every scan of caller text (templates) or of a PDF (which holds the document's title) must be
 * linear: each is fed the worst input we could build, at 8 KiB and at 256 KiB, 32 times more. A
 * linear scan takes about 32 times as long on the larger (up to 75 measured: caches favour the
 * small one), a quadratic one about 1024 times, so a bound of 256 on that ratio tells them apart
 * on any machine, fast or slow, without a bound in seconds: both sizes are timed in the same test.
 * It catches more than the 15 s bound on 1 MB it replaces: a scan made quadratic on purpose, at
 * 1/64 of a pass per token (2 to 5 s on 1 MB, under that bound), failed it at ratios of 390 to 640.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { countPdfPages } from '../src/engine/pages/page-count.js';
import { destinationPages } from '../src/engine/pages/pdf-destinations.js';
import { referenceRules } from '../src/engine/pages/target-counter-css.js';
import { buildTemplate } from '../src/engine/templates/header-footer.js';
import {
  stylesheetReferences,
  templateFetches,
  templateReferences,
  usesUrlClass,
} from '../src/markup/template-references.js';
import { parseRenderRequest } from '../src/request.js';

/** Hostile input built from runs of a unit: `run` repeats one to the size asked for. */
type Input = (run: (unit: string) => string) => string;

/** `input` with each of its runs `size` bytes long. */
const sized = (input: Input, size: number) => input((unit) => unit.repeat(Math.ceil(size / unit.length)));

const small = 8 * 1024;
const large = 32 * small;

/**
 * How many times longer `scan` takes on the large input than on the small one (32 when linear, 1024
 * when quadratic): the fastest of three runs at each size, taken in turn, so that a pause of the
 * machine or a garbage collection in one run does not count. A scan too quick to time counts as 0.1 ms.
 */
function growthOnce(texts: string[], scan: (text: string) => unknown): number {
  const best = [Infinity, Infinity];
  for (let round = 0; round < 3; round += 1) {
    texts.forEach((text, i) => {
      const started = performance.now();
      scan(text);
      best[i] = Math.min(best[i]!, performance.now() - started);
    });
  }
  return Math.max(best[1]!, 0.1) / Math.max(best[0]!, 0.1);
}

const linear = 256;

/**
 * The growth, measured again (up to three times, the lowest kept) while it is over the bound: a
 * busy machine (three test files on two cores) once made a linear scan measure 283, while a
 * quadratic one measures over the bound every time (390 to 640 at the weakest that was tried).
 */
function growth(input: Input, scan: (text: string) => unknown): number {
  const texts = [sized(input, small), sized(input, large)];
  let lowest = Infinity;
  for (let attempt = 0; attempt < 3 && lowest >= linear; attempt += 1)
    lowest = Math.min(lowest, growthOnce(texts, scan));
  return lowest;
}

// Runs of every opening that a scanner might start from and never close.
const hostileTemplates: Record<string, Input> = {
  'url(': (run) => run('url('),
  'url( with spaces': (run) => run('url(   '),
  'url("': (run) => run('url("'),
  "url('": (run) => run("url('"),
  'url(a': (run) => run('url(a'),
  'url(a then spaces': (run) => `${run('url(a')}${run(' ')}x`,
  'url("a" then spaces': (run) => run('url("a"   '),
  '<img': (run) => run('<img'),
  '<img src=': (run) => run('<img src='),
  '<img src="': (run) => run('<img src="'),
  '<img src= src=': (run) => `<img${run(' src= ')}`,
  'class=': (run) => run('class='),
  '<a class=': (run) => run('<a class='),
  '<a class="': (run) => run('<a class="'),
  '<<<': (run) => run('<'),
  quotes: (run) => run('"\''),
  // Markup as a parser reads it: comments, raw text, attributes, foreign content.
  '<!--': (run) => run('<!--'),
  '<!-->': (run) => run('<!-->'),
  '<a b': (run) => run('<a b'),
  '<a b="': (run) => run('<a b="'),
  "<a b='x' ": (run) => run("<a b='x' "),
  'one tag, one attribute repeated': (run) => `<a${run(' b')}>`,
  'one tag, attributes with values': (run) => `<a${run(' b=c')}`,
  '<svg>': (run) => run('<svg>'),
  '</svg>': (run) => run('</svg>'),
  '<svg><style/>': (run) => `<svg>${run('<style/>')}`,
  '<style/>': (run) => run('<style/>'),
  '<iframe>': (run) => run('<iframe>'),
  '<link rel=stylesheet href=': (run) => run('<link rel=stylesheet href='),
  '<link ': (run) => run('<link '),
  'spaces, then <!--': (run) => `${run(' ')}<!--`,
  '<img srcset="a, ': (run) => `<img srcset="${run('a, ')}">`,
  '<img srcset with commas': (run) => `<img srcset="a${run(',')}b">`,
  '<img srcset=': (run) => run('<img srcset=a,'),
  'style attribute of url(': (run) => `<p style="${run('url(')}">`,
  'fill of url(#a)': (run) => `<rect fill="${run('url(#a) ')}">`,
  // CSS as a tokenizer reads it, in <style> elements: one long one, and many small ones.
  '<style></style>': (run) => run('<style></style>'),
  '<style>url(</style>': (run) => run('<style>url(</style>'),
  '<style>"</style>': (run) => run('<style>"</style>'),
  '<style> of @import': (run) => `<style>${run('@import ')}`,
  '<style> of @import "': (run) => `<style>${run('@import "')}`,
  '<style> of @import url(': (run) => `<style>${run('@import url(')}`,
  '<style> of @font-face{': (run) => `<style>${run('@font-face{')}`,
  '<style> of @font-face{url(': (run) => `<style>${run('@font-face{url(')}`,
  '<style> of image-set(': (run) => `<style>${run('image-set(')}`,
  '<style> of image-set("': (run) => `<style>${run('image-set("')}`,
  '<style> of /*': (run) => `<style>${run('/*')}`,
  '<style> of "\\': (run) => `<style>${run('"\\')}`,
  '<style> of url("a" then spaces': (run) => `<style>${run('url("a"   ')}`,
  '<style> of {': (run) => `<style>${run('{')}`,
  '<style> of }(': (run) => `<style>${run('}(')}`,
};

// The same for a fetched style sheet, which is scanned as CSS alone.
const hostileSheets: Record<string, Input> = {
  'url(': (run) => run('url('),
  'url("': (run) => run('url("'),
  'url(a': (run) => run('url(a'),
  '@import ': (run) => run('@import '),
  '@import url(': (run) => run('@import url('),
  "@import '": (run) => run("@import '"),
  '@font-face{url(': (run) => run('@font-face{url('),
  'image-set(': (run) => run('image-set('),
  "image-set('": (run) => run("image-set('"),
  '/*': (run) => run('/*'),
  'backslashes in a string': (run) => `"${run('\\')}`,
};

describe('template scans are linear', () => {
  for (const [name, html] of Object.entries(hostileTemplates)) {
    it(`finds references in runs of ${name}`, () => {
      expect(
        growth(html, (text) => [
          templateReferences(text),
          templateFetches(text),
          usesUrlClass(text),
          buildTemplate(text, { left: 1, right: 1 }), // whether it starts or ends with text
        ]),
      ).toBeLessThan(linear);
    });
  }

  for (const [name, css] of Object.entries(hostileSheets)) {
    it(`finds references in a style sheet of ${name}`, () => {
      expect(growth(css, stylesheetReferences)).toBeLessThan(linear);
    });
  }

  it('validates a header of url( runs (the schema counts its images)', () => {
    expect(
      growth(hostileTemplates['url(']!, (header) =>
        parseRenderRequest({ htmlContent: '<p>x</p>', headerHtmlContent: header }),
      ),
    ).toBeLessThan(linear);
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
      templateFetches(
        '<img src="a.png"><img src="a.png"><p style="background:url(a.png)"></p><img src="data:image/png;base64,AA"><img src="b.png">',
      ).images,
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
  const pdfs: Record<string, Input> = {
    '<': (run) => run('<'),
    '<< /Type /Pages': (run) => run('<< /Type /Pages '),
    '<< /Type /Pages /Count 1': (run) => run('<< /Type /Pages /Count 1 '),
    '>>': (run) => run('>>'),
    '/Type /Pages without <<': (run) => `${run('/Type /Pages ')}>>`,
    '/Type then spaces': (run) => run('/Type          '),
    '/Count then spaces': (run) => run('/Count          '),
  };
  for (const [name, text] of Object.entries(pdfs)) {
    it(`counts pages in runs of ${name}`, () => {
      const pdf = (title: string) =>
        Buffer.from(
          `%PDF-1.4\n1 0 obj\n<< /Title (${title}) >>\nendobj\n2 0 obj\n<< /Type /Pages /Count 3 /Kids [] >>\nendobj\n`,
          'latin1',
        );
      // The count is right at both sizes, so the scan timed is the one that reads the real /Count.
      expect([small, large].map((size) => countPdfPages(pdf(sized(text, size))))).toEqual([3, 3]);
      expect(growth(text, (title) => countPdfPages(pdf(title)))).toBeLessThan(linear);
    });
  }

  it('reads the root /Count whatever the key order', () => {
    const pdf =
      '1 0 obj\n<</Count 7 /Kids [3 0 R] /Type /Pages>>\nendobj\n3 0 obj\n<</Type /Pages /Parent 1 0 R /Count 4>>\nendobj\n4 0 obj\n<</Type /Page /Count 99>>\nendobj';
    expect(countPdfPages(Buffer.from(pdf, 'latin1'))).toBe(7);
  });
});

describe('page references are read in linear time', () => {
  // CSS a document chooses, read for its target-counter rules (target-counter-css.ts).
  const rule = 'a::after{content:target-counter(attr(href),page)}';
  const sheets: Record<string, Input> = {
    'target-counter( in a rule': (run) => `a::after{content:${run('target-counter(')}}`,
    'leader( after a reference': (run) => `a::after{content:target-counter(attr(href),page) ${run('leader(')}}`,
    'content: declarations': (run) => `a::after{${run('content:')}target-counter(}`,
    'strings in a content value': (run) => `a::after{content:${run('"a" ')}target-counter(attr(href),page)}`,
    'commas in a selector': (run) => `${run(',')}::after{content:target-counter(attr(href),page)}`,
    'spaces after ::after': (run) => `${run(':after ')}{content:target-counter(attr(href),page)}`,
    'attr( without a close': (run) => `a::after{content:target-counter(attr(href${run(' x')}`,
    '! in a content value': (run) => `a::after{content:target-counter(attr(href),page) ${run('!  ')}}`,
    'target-counter then spaces': (run) => `a::after{content:${run('target-counter  ')}}`,
    rules: (run) => run(rule),
    '{': (run) => run('{'),
    '}(': (run) => run('}('),
    '/*': (run) => `${rule}${run('/*')}`,
    'backslashes in a string': (run) => `${rule}"${run('\\')}`,
  };
  for (const [name, css] of Object.entries(sheets)) {
    it(`finds the rules in runs of ${name}`, () => {
      expect(growth(css, (text) => referenceRules([text], 200))).toBeLessThan(linear);
    });
  }

  // Destination names are the document's link fragments, which it chooses.
  const names: Record<string, Input> = {
    'one long name': (run) => `/${run('a')} [3 0 R /XYZ 0 0 0]`,
    'names without a target': (run) => run('/a /b '),
    'names then spaces': (run) => run('/a        '),
    endobj: (run) => run('/endobj [3 0 R /XYZ 0 0 0]\n'),
  };
  for (const [name, dests] of Object.entries(names)) {
    it(`reads the destinations in runs of ${name}`, () => {
      expect(growth(dests, (text) => destinationPages(pdfWithDests(text)))).toBeLessThan(linear);
      expect(destinationPages(pdfWithDests(`${sized(dests, small)}\n/last [3 0 R /XYZ 0 0 0]`))?.get('last')).toBe(1);
    });
  }
  // Not a dictionary at all (arrays never closed): Chromium escapes a name's delimiters (#5B), so no
  // document writes this; it is refused, in linear time too.
  const malformed: Record<string, Input> = {
    '[ without a page': (run) => run('/a [ '),
  };
  for (const [name, dests] of Object.entries(malformed)) {
    it(`refuses destinations that are runs of ${name}`, () => {
      expect(growth(dests, (text) => destinationPages(pdfWithDests(text)))).toBeLessThan(linear);
      expect(destinationPages(pdfWithDests(`${sized(dests, small)}\n/last [3 0 R /XYZ 0 0 0]`))).toBeUndefined();
    });
  }
});

/** A PDF as Chromium lays one out (a catalog, a page tree of one page, /Dests), with `dests` in its /Dests. */
function pdfWithDests(dests: string): Buffer {
  const objects = [
    '<</Type /Catalog\n/Pages 2 0 R\n/Dests 4 0 R>>',
    '<</Type /Pages\n/Count 1\n/Kids [3 0 R]>>',
    '<</Type /Page\n/Parent 2 0 R>>',
    `<<${dests}>>`,
  ];
  let text = '%PDF-1.4\n';
  const offsets = objects.map((object, index) => {
    const at = text.length;
    text += `${index + 1} 0 obj\n${object}\nendobj\n`;
    return at;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  text += offsets.map((at) => `${String(at).padStart(10, '0')} 00000 n \n`).join('');
  text += `trailer\n<</Size ${objects.length + 1}\n/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF`;
  return Buffer.from(text, 'latin1');
}

describe('length and quantity parsing is linear', () => {
  for (const [name, value] of Object.entries<Input>({
    'spaces then junk': (run) => `1${run(' ')}!`,
    'spaces, a unit, junk': (run) => `1${run(' ')}mm${run(' ')}!`,
    'digits then junk': (run) => `${run('1')}!`,
    'fraction then junk': (run) => `1.${run('1')} x!`,
  })) {
    it(`rejects runs of ${name} as marginTop`, () => {
      const parse = (marginTop: string) => {
        try {
          parseRenderRequest({ htmlContent: '<p>x</p>', marginTop });
        } catch (e) {
          return e as Error;
        }
      };
      expect(parse(sized(value, small))?.message).toMatch(/failed validation/);
      expect(growth(value, parse)).toBeLessThan(linear);
    });
  }

  it('still reads lengths with spaces around them', () => {
    expect(parseRenderRequest({ htmlContent: '<p>x</p>', marginTop: '  72 pt ' }).marginTop).toBe(1);
  });
});
