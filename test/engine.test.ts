/**
 * The render engine against real Chromium: every assertion reads the PDF it produced.
 */
import { execSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest, type RenderRequestInput } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { folderWith, redPng, removeTempDirs } from './support/files.js';
import { startGate } from './support/gate.js';
import { pt, readPaint, readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

let engine: Engine;

beforeAll(() => {
  // As the CLI renders: the document's folder and the whole network are open.
  engine = createEngine({
    executablePath,
    concurrency: 2,
    timeoutMs: 20_000,
    files: 'document-folder',
    network: { network: 'all', allowHosts: [] },
  });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

const noMargins = { marginTop: 0, marginRight: 0, marginBottom: 0, marginLeft: 0 };

async function render(input: Partial<RenderRequestInput> & { htmlContent: string }, baseUrl?: string) {
  const result = await engine.render(parseRenderRequest(input), baseUrl ? { baseUrl } : {});
  return { result, pdf: await readPdf(result.pdf) };
}

/** A document of `count` pages, each starting with "Page body N". */
function pagesOf(count: number): string {
  return Array.from({ length: count }, (_, i) => `<p style="break-after: page">Page body ${i + 1}</p>`).join('');
}

// Chromium rounds page sizes up to its own device grid: A4 comes out 595.92 x 841.92 pt.
const sizeTolerance = 0.7;

describe('page size', () => {
  it.each([
    ['8.5in', '11in', 8.5 * pt.in, 11 * pt.in],
    ['210mm', '297mm', 210 * pt.mm, 297 * pt.mm],
    ['21cm', '14.8cm', 21 * pt.cm, 14.8 * pt.cm],
    ['500pt', '300pt', 500, 300],
    ['816px', '528px', 816 * pt.px, 528 * pt.px],
    ['30pc', '40pc', 30 * pt.pc, 40 * pt.pc],
    [5, '4', 5 * pt.in, 4 * pt.in],
  ])('%s x %s', async (paperWidth, paperHeight, width, height) => {
    const { pdf } = await render({ htmlContent: '<p>size</p>', paperWidth, paperHeight });
    expect(pdf.pages).toHaveLength(1);
    expect(Math.abs(pdf.pages[0]!.width - width)).toBeLessThanOrEqual(sizeTolerance);
    expect(Math.abs(pdf.pages[0]!.height - height)).toBeLessThanOrEqual(sizeTolerance);
  });

  it('swaps width and height in landscape', async () => {
    const { pdf } = await render({
      htmlContent: '<p>wide</p>',
      paperWidth: '210mm',
      paperHeight: '297mm',
      landscape: true,
    });
    expect(Math.abs(pdf.pages[0]!.width - 297 * pt.mm)).toBeLessThanOrEqual(sizeTolerance);
    expect(Math.abs(pdf.pages[0]!.height - 210 * pt.mm)).toBeLessThanOrEqual(sizeTolerance);
  });

  it('defaults to US Letter', async () => {
    const { pdf } = await render({ htmlContent: '<p>letter</p>' });
    expect(pdf.pages[0]).toMatchObject({ width: 612, height: 792 });
  });
});

describe('margins and scale', () => {
  it('places the body at the top-left margin', async () => {
    const { pdf } = await render({
      htmlContent: '<body style="margin:0"><p style="margin:0;font-size:20px">Corner</p>',
      marginLeft: '1in',
      marginTop: '2in',
      marginRight: 0,
      marginBottom: 0,
    });
    const corner = pdf.pages[0]!.items.find((item) => item.text.includes('Corner'))!;
    expect(corner.x).toBeCloseTo(72, 0);
    // The baseline sits one line below the top margin: between 2in and 2in + the 20px line.
    const fromTop = pdf.pages[0]!.height - corner.y;
    expect(fromTop).toBeGreaterThan(144);
    expect(fromTop).toBeLessThan(144 + 20);
  });

  it('scales the content', async () => {
    const html = '<p style="margin:0;font-size:20px">Scaled</p>';
    const plain = await render({ htmlContent: html, ...noMargins });
    const half = await render({ htmlContent: html, ...noMargins, scale: 0.5 });
    const size = (p: typeof plain) => p.pdf.pages[0]!.items[0]!.fontSize;
    expect(size(plain)).toBeCloseTo(15, 0); // 20px = 15pt
    expect(size(half) / size(plain)).toBeCloseTo(0.5, 2);
  });

  it('lays out more pages when margins take more room', async () => {
    const text = '<p>Line of text that fills the page.</p>'.repeat(60);
    const narrow = await render({ htmlContent: text, marginTop: '0.2in', marginBottom: '0.2in' });
    const wide = await render({ htmlContent: text, marginTop: '4in', marginBottom: '4in' });
    expect(wide.result.pages).toBeGreaterThan(narrow.result.pages);
    expect(wide.pdf.pages).toHaveLength(wide.result.pages);
  });
});

describe('background, tagging, outline', () => {
  const colored = '<div style="background:#ff0000;height:100px">red box</div>';

  it('prints backgrounds only when asked', async () => {
    const without = await engine.render(parseRenderRequest({ htmlContent: colored }));
    const withBg = await engine.render(parseRenderRequest({ htmlContent: colored, printBackground: true }));
    expect((await readPaint(without.pdf)).fillColors.has('#ff0000')).toBe(false);
    expect((await readPaint(withBg.pdf)).fillColors.has('#ff0000')).toBe(true);
  });

  it('writes tagged PDFs with an outline by default (issue 30), and neither on request', async () => {
    const html = '<h1>Chapter one</h1><p>text</p><h2>Section two</h2><p>more</p>';
    const rich = await render({ htmlContent: html });
    expect(rich.pdf.tagged).toBe(true);
    expect(rich.pdf.outline).toEqual(expect.arrayContaining(['Chapter one', 'Section two']));
    const plain = await render({ htmlContent: html, tagged: false, outline: false });
    expect(plain.pdf.tagged).toBe(false);
    expect(plain.pdf.outline).toEqual([]);
  });
});

describe('header and footer', () => {
  const header = '<div style="width:100%;text-align:center">Acme header <span class="title"></span></div>';
  const footer =
    '<div style="width:100%;text-align:center">Page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';

  it('prints on every page with the right page numbers', async () => {
    const { pdf } = await render({
      htmlContent: `<title>My Report</title>${pagesOf(3)}`,
      headerHtmlContent: header,
      footerHtmlContent: footer,
      marginTop: '1in',
      marginBottom: '1in',
    });
    expect(pdf.pages).toHaveLength(3);
    pdf.pages.forEach((page, index) => {
      expect(page.text).toContain('Acme header My Report');
      expect(page.text).toContain(`Page ${index + 1} of 3`);
      expect(page.text).toContain(`Page body ${index + 1}`);
    });
  });

  it('gives unstyled template text a readable 10px size, and explicit styles win', async () => {
    const { pdf } = await render({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<span>Plain header</span>',
      footerHtmlContent: '<span style="font-size:20px">Big footer</span>',
      marginTop: '1in',
      marginBottom: '1in',
    });
    const items = pdf.pages[0]!.items;
    expect(items.find((i) => i.text.includes('Plain header'))!.fontSize).toBeCloseTo(7.5, 0); // 10px
    expect(items.find((i) => i.text.includes('Big footer'))!.fontSize).toBeCloseTo(15, 0); // 20px
  });

  it('insets template text by the page margins', async () => {
    const { pdf } = await render({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<span>Inset</span>',
      marginTop: '1in',
      marginLeft: '1in',
    });
    expect(pdf.pages[0]!.items.find((i) => i.text === 'Inset')!.x).toBeCloseTo(72, 0);
  });

  it('prints no Chromium default header when only a footer is given', async () => {
    const { pdf } = await render({
      htmlContent: '<title>Secret title</title><p>body</p>',
      footerHtmlContent: '<span>Only footer</span>',
      marginTop: '1in',
      marginBottom: '1in',
    });
    expect(pdf.pages[0]!.text).toContain('Only footer');
    expect(pdf.pages[0]!.text).not.toContain('Secret title');
  });

  it('inlines header images from the document folder and over http', async () => {
    const server = await serve((_, res) => res.writeHead(200, { 'Content-Type': 'image/png' }).end(redPng));
    try {
      const dir = await folderWith({ 'logo.png': redPng });
      const headerHtmlContent = `<img src="logo.png" style="height:10px"><img src="${server.url}/remote.png" style="height:10px">`;
      const request = parseRenderRequest({ htmlContent: '<p>body</p>', headerHtmlContent, marginTop: '1in' });
      const result = await engine.render(request, { baseUrl: `${pathToFileURL(dir).href}/` });
      expect(result.warnings).toEqual([]);
      expect((await readPaint(result.pdf)).images).toBe(2);
    } finally {
      server.close();
    }
  });

  it('renders and warns when a header image cannot be fetched', async () => {
    const dir = await folderWith({});
    const request = parseRenderRequest({
      htmlContent: '<p>body</p>',
      headerHtmlContent: '<img src="missing.png"> Header',
      marginTop: '1in',
    });
    const result = await engine.render(request, { baseUrl: `${pathToFileURL(dir).href}/` });
    expect(result.warnings.join()).toMatch(/missing\.png/);
    expect((await readPdf(result.pdf)).pages[0]!.text).toContain('Header');
  });
});

describe('document resources', () => {
  it('loads stylesheets, images and fonts relative to the base URL, and waits for web fonts', async () => {
    const dir = await folderWith({
      'style.css':
        '@font-face { font-family: Custom; src: url(font.ttf); } body::after { content: "STYLESHEET LOADED"; } p { font-family: Custom; }',
      'pic.png': redPng,
    });
    await copyFile('/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf', join(dir, 'font.ttf'));
    const html =
      '<link rel="stylesheet" href="style.css"><p>Web font text</p><img src="pic.png" width="20" height="20">';
    const result = await engine.render(parseRenderRequest({ htmlContent: html }), {
      baseUrl: `${pathToFileURL(dir).href}/`,
    });
    const pdf = await readPdf(result.pdf);
    expect(pdf.pages[0]!.text).toContain('STYLESHEET LOADED');
    expect(pdf.fontNames.some((name) => name.includes('DejaVuSansMono'))).toBe(true);
    expect((await readPaint(result.pdf)).images).toBe(1);
  });
});

describe('isolation between documents', () => {
  it('gives every document a fresh window, cookies and storage', async () => {
    // A real http origin, so cookies and localStorage work as on any web page.
    // A cacheable resource too: the second document must not find it in a cache the first one filled.
    let cachedFetches = 0;
    const server = await serve((req, res) => {
      if (req.url === '/cached.css') {
        cachedFetches += 1;
        return res
          .writeHead(200, { 'Content-Type': 'text/css', 'Cache-Control': 'max-age=3600' })
          .end('p { color: black }');
      }
      res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html>');
    });
    const single = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
    try {
      const baseUrl = `${server.url}/`;
      const writer = `<script>
        document.cookie = 'secret=fromA'; localStorage.setItem('secret', 'fromA'); sessionStorage.setItem('secret', 'fromA');
        window.secretGlobal = 'fromA'; const total = 1;
        // A timer that keeps writing, so a wipe that ran while A's window was alive would be undone.
        setInterval(() => {
          document.body.dataset.tick = 'timer from A'; document.title = 'timer from A';
          localStorage.setItem('secret', 'fromTimer'); sessionStorage.setItem('secret', 'fromTimer'); document.cookie = 'late=fromTimer';
        }, 1);
        document.write('A wrote ' + document.cookie + ' ' + localStorage.getItem('secret') + ' ' + sessionStorage.getItem('secret'));
      </script>`;
      const reader = `<p id="out"></p><script>
        const total = 2;
        out.textContent = ['cookie=' + document.cookie, 'local=' + localStorage.getItem('secret'),
          'session=' + sessionStorage.getItem('secret'), 'global=' + window.secretGlobal, 'total=' + total].join(' ');
      </script>`;
      const written = await single.render(
        parseRenderRequest({ htmlContent: `<link rel="stylesheet" href="cached.css">${writer}` }),
        { baseUrl },
      );
      // Proof that A really stored something for B to find.
      expect((await readPdf(written.pdf)).pages[0]!.text).toContain('A wrote secret=fromA fromA fromA');
      const result = await single.render(
        parseRenderRequest({ htmlContent: `<title>B</title><link rel="stylesheet" href="cached.css">${reader}` }),
        {
          baseUrl,
        },
      );
      expect(cachedFetches).toBe(2);
      const text = (await readPdf(result.pdf)).pages[0]!.text;
      expect(text).toContain('cookie= local=null session=null global=undefined total=2');
      expect(text).not.toContain('timer from A');
    } finally {
      await single.close();
      server.close();
    }
  });

  it('renders documents that declare the same top-level const one after another', async () => {
    const html = '<p id="o">not run</p><script>const amount = 42; o.textContent = "amount " + amount;</script>';
    for (let i = 0; i < 3; i += 1) {
      const { pdf } = await render({ htmlContent: html });
      expect(pdf.pages[0]!.text).toContain('amount 42');
    }
  });
});

describe('runaway documents', () => {
  it('fails a script that never ends at the deadline, and keeps serving', async () => {
    const failure = await engine
      .render(parseRenderRequest({ htmlContent: '<script>while (true) {}</script>' }), { timeoutMs: 1000 })
      .catch((e) => e);
    expect(isPdfRenderError(failure, 'RENDER_PDF_FAILED')).toBe(true);
    expect(failure.message).toMatch(/did not finish rendering within the 1 s deadline/);
    const { pdf } = await render({ htmlContent: '<p>still alive</p>' });
    expect(pdf.pages[0]!.text).toContain('still alive');
  });

  it('dismisses dialogs and closes popups', async () => {
    const html = `<p id="o"></p><script>
      alert('hi'); const answer = confirm('sure?'); const name = prompt('name?');
      const popup = window.open('about:blank'); window.print();
      o.textContent = 'confirm=' + answer + ' prompt=' + name;
    </script>`;
    const { pdf } = await render({ htmlContent: html });
    expect(pdf.pages[0]!.text).toContain('confirm=false prompt=null');
  });

  it('fails a document that crashes its renderer, and keeps serving', async () => {
    // Splitting a 256 MiB string asks V8 for an array past its size limit, a fatal error that takes
    // the renderer down at once (crbug.com/1201626): 0.2 s, against 5 s of filling a 4 GB heap. Should a
    // later V8 throw a RangeError instead, the document goes on to exhaust the heap, which crashes too.
    const hog =
      '<script>try { "x".repeat(2 ** 28).split(""); } catch {} const hog = []; while (true) hog.push(new Array(1e6).fill(Math.random()));</script>';
    const failure = await engine
      .render(parseRenderRequest({ htmlContent: hog }), { timeoutMs: 45_000 })
      .catch((e) => e);
    expect(isPdfRenderError(failure, 'RENDER_PDF_FAILED')).toBe(true);
    expect(failure.message).toMatch(/renderer crashed/);
    const { pdf } = await render({ htmlContent: '<p>after the crash</p>' });
    expect(pdf.pages[0]!.text).toContain('after the crash');
  }, 90_000);

  it('relaunches the browser when it dies', async () => {
    const single = createEngine({ executablePath, concurrency: 1 });
    try {
      const before = new Set(childPids());
      await single.render(parseRenderRequest({ htmlContent: '<p>first</p>' }));
      const started = childPids().filter((pid) => !before.has(pid));
      expect(started).toHaveLength(1);
      process.kill(-started[0]!, 'SIGKILL'); // the whole group: the binary may be a wrapper around the browser
      // Rendered again once the browser is gone (reaped), so this is the relaunch, not the retry of a render in flight.
      await until(() => !childPids().includes(started[0]!), 'the killed browser to be gone');
      const result = await single.render(parseRenderRequest({ htmlContent: '<p>second browser</p>' }));
      expect((await readPdf(result.pdf)).pages[0]!.text).toContain('second browser');
    } finally {
      await single.close();
    }
  });
  it('retries once on a fresh browser the renders in flight when the whole browser dies under them', async () => {
    const pair = createEngine({ executablePath, concurrency: 2, network: { network: 'all', allowHosts: [] } });
    try {
      const before = new Set(childPids());
      await pair.render(parseRenderRequest({ htmlContent: '<p>warm</p>' }));
      const browserPid = childPids().find((pid) => !before.has(pid))!;
      // Each document waits on a loopback gate once it is on its page, so the kill lands mid-render,
      // not before; the gate opens after the kill, so the retries load at once.
      const gate = await startGate();
      const gated = (label: string) => parseRenderRequest({ htmlContent: `<p>${label}</p><img src="${gate.url}">` });
      const renders = [
        pair.render(gated('first caller'), { timeoutMs: 20_000 }),
        pair.render(gated('second caller'), { timeoutMs: 20_000 }),
      ];
      await gate.reached(2);
      process.kill(-browserPid, 'SIGKILL'); // the whole group: the binary may be a wrapper around the browser
      gate.open();
      const results = await Promise.all(renders);
      expect((await readPdf(results[0]!.pdf)).pages[0]!.text).toContain('first caller');
      expect((await readPdf(results[1]!.pdf)).pages[0]!.text).toContain('second caller');
      // They were printed by a new browser: the killed one was mid-render.
      expect(childPids().filter((pid) => !before.has(pid) && pid !== browserPid)).toHaveLength(1);
      gate.close();
    } finally {
      await pair.close();
    }
  });
});

describe('page limit', () => {
  it('fails a document longer than maxPages, and renders one at the limit', async () => {
    const limited = createEngine({ executablePath, concurrency: 1, maxPages: 3 });
    try {
      const atLimit = await limited.render(parseRenderRequest({ htmlContent: pagesOf(3) }));
      expect(atLimit.pages).toBe(3);
      const failure = await limited.render(parseRenderRequest({ htmlContent: pagesOf(500) })).catch((e) => e);
      expect(isPdfRenderError(failure, 'RENDER_PDF_FAILED')).toBe(true);
      expect(failure.message).toBe('the document has more pages than the limit of 3 (maxPages)');
      expect((await limited.render(parseRenderRequest({ htmlContent: '<p>next</p>' }))).pages).toBe(1);
    } finally {
      await limited.close();
    }
  });
});

describe('concurrency', () => {
  it('lets urgent renders (sync, CLI) go ahead of background ones (async jobs) waiting for a page', async () => {
    const single = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
    // The busy document holds the only page on a loopback gate until the others are queued behind it.
    const gate = await startGate();
    try {
      const finished: string[] = [];
      const run = (name: string, lane: 'urgent' | 'background', html = `<p>${name}</p>`) =>
        single.render(parseRenderRequest({ htmlContent: html }), { lane }).then(() => finished.push(name));
      const busy = run('busy', 'urgent', gate.document());
      await gate.reached(1);
      // With nothing to fetch first, each reaches the page queue within microtasks, long before the
      // busy one, its image answered, can print and give the page back.
      const queued = [run('background-1', 'background'), run('background-2', 'background'), run('urgent', 'urgent')];
      gate.open();
      await Promise.all([busy, ...queued]);
      expect(finished).toEqual(['busy', 'urgent', 'background-1', 'background-2']);
    } finally {
      gate.close();
      await single.close();
    }
  });

  it('renders many documents at once, each with its own content, and Node warns of no listener leak', async () => {
    // Fifteen with no signal and fifteen sharing one (a batch's cancel) wait for the two pages at
    // once: Node warns of a leak at 11 listeners on one signal, as a library user's process did.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    const batch = new AbortController();
    try {
      const results = await Promise.all(
        Array.from({ length: 30 }, async (_, i) => {
          const result = await engine.render(
            parseRenderRequest({ htmlContent: `<p>Document number ${i}</p>${pagesOf((i % 3) + 1)}` }),
            {
              signal: i % 2 ? batch.signal : undefined,
            },
          );
          return { result, pdf: await readPdf(result.pdf) };
        }),
      );
      results.forEach(({ result, pdf }, i) => {
        expect(pdf.pages[0]!.text).toContain(`Document number ${i}`);
        expect(result.pages).toBe((i % 3) + 1);
        expect(pdf.pages).toHaveLength(result.pages);
      });
      // A warning is emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

/** A local HTTP server on an ephemeral port. */
async function serve(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; close: () => void }> {
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

/** Process ids of the browsers this test process started (its direct children). */
function childPids(): number[] {
  return execSync(`pgrep -P ${process.pid} chrom || true`).toString().split('\n').filter(Boolean).map(Number);
}
