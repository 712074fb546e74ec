/**
 * The render options of issue 13 (waits, CSS page size, media type, page ranges, metadata) through
 * the engine, both endpoints and the CLI (run in-process), asserted on the PDFs: text, page count, page size and the
 * document information as a PDF reader sees them. Each document here prints something different
 * without its option, so each test fails when its option does nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { parseRenderRequest, type RenderRequestInput } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf, readPdfInfo, readingOrder, pt } from './support/pdf.js';
import { receiver } from './support/receiver.js';
import { startServer } from './support/server.js';
import { until } from './support/wait.js';

/** Text that arrives 500 ms after load, with a flag the page sets then. */
const late =
  '<p>Always here</p><script>setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Arrived late"; document.body.append(p); window.ready = true; }, 500);</script>';
const a5 = '<style>@page { size: A5 }</style><p>Paper</p>';
const media =
  '<style>.screen { display: none } @media screen { .screen { display: block } }</style><p>Paper</p><p class="screen">Screen only</p>';
const threePages =
  '<style>div { break-after: page }</style><div>First page</div><div>Second page</div><div>Third page</div>';
/** Two pages, then the late text on the third. */
const lateOnThird = `<style>.break { break-after: page }</style><div class="break">First page</div><div class="break">Second page</div>${late}`;

const reading = readingOrder;

let engine: Engine;
const cli = inProcessCli();
let slow: Server;
let slowUrl: string;
let site: Server;
let siteUrl: string;

beforeAll(async () => {
  engine = createEngine({
    executablePath,
    concurrency: 2,
    timeoutMs: 10_000,
    network: { network: 'all', allowHosts: [] },
  });
  // Answers after 800 ms: a document that fetches it has a request in flight well after its load event.
  slow = createServer((_req, res) =>
    setTimeout(() => res.writeHead(200, { 'access-control-allow-origin': '*' }).end('Fetched slowly'), 800),
  );
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`;
  // A small site for `url`: a report whose style sheet is a relative link, and a page that is not there.
  site = createServer((req, res) => {
    if (req.url === '/reports/q3.html')
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<link rel="stylesheet" href="style.css"><h1>Quarterly report</h1><p class="note">Styled by a relative link</p>',
        );
    if (req.url === '/reports/style.css')
      return res.writeHead(200, { 'content-type': 'text/css' }).end('.note { display: block } @page { size: A5 }');
    res.writeHead(404, { 'content-type': 'text/html' }).end('<p>Not here</p>');
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await engine.close();
  await cli.close();
  slow.close();
  site.close();
  await removeTempDirs();
});

const render = async (input: Partial<RenderRequestInput>, on: Engine = engine) => {
  const result = await on.render(parseRenderRequest({ htmlContent: late, ...input }));
  return { ...result, read: await readPdf(result.pdf) };
};

describe('waits', () => {
  it('prints late content with waitForSelector, waitForExpression or waitDelay, and misses it without', async () => {
    expect((await render({})).read.pages[0]!.text).toBe('Always here');
    // Side by side on the engine's two pages: each document keeps its own timer.
    const waits = [
      { waitForSelector: '#late' },
      { waitForExpression: 'window.ready === true' },
      { waitDelay: '800ms' },
      { waitDelay: 800 },
    ];
    const texts = await Promise.all(waits.map(async (wait) => (await render(wait)).read.pages[0]!.text));
    expect(Object.fromEntries(waits.map((wait, i) => [JSON.stringify(wait), texts[i]]))).toEqual(
      Object.fromEntries(waits.map((wait) => [JSON.stringify(wait), 'Always here Arrived late'])),
    );
  });

  it('waits for a hidden element to become visible, not just to exist', async () => {
    const html =
      '<p id="x" style="visibility: hidden">Shown later</p><script>setTimeout(() => { document.getElementById("x").style.visibility = "visible"; window.shownAt = 1; }, 500);</script>';
    const [waited, without] = await Promise.all([
      render({ htmlContent: html, waitForSelector: '#x' }),
      render({ htmlContent: html }),
    ]);
    expect(waited.read.pages[0]!.text).toBe('Shown later');
    // Without the wait the element prints hidden: no text.
    expect(without.read.pages[0]?.text ?? '').toBe('');
  });

  it('prints once the network is quiet with waitForNetworkIdle', async () => {
    const html = `<p>Start</p><script>fetch(${JSON.stringify(slowUrl)}).then((r) => r.text()).then((t) => { const p = document.createElement("p"); p.textContent = t; document.body.append(p); });</script>`;
    const [without, idle] = await Promise.all([
      render({ htmlContent: html }),
      render({ htmlContent: html, waitForNetworkIdle: true }),
    ]);
    expect(without.read.pages[0]!.text).toBe('Start');
    expect(idle.read.pages[0]!.text).toBe('Start Fetched slowly');
  });

  it('fails a wait that never ends at the deadline, naming the condition, and the engine goes on', async () => {
    // The file's engine with a per-render deadline (what sync requests and CLI runs pass in), rather
    // than an engine of its own launched with a 1.5 s one.
    const short = { timeoutMs: 1000 };
    await Promise.all([
      expect(
        engine.render(parseRenderRequest({ htmlContent: late, waitForSelector: '#never' }), short),
      ).rejects.toMatchObject({
        code: 'RENDER_PDF_FAILED',
        message: expect.stringMatching(/within the 1 s deadline; still waiting for waitForSelector "#never"/),
      }),
      expect(
        engine.render(parseRenderRequest({ htmlContent: late, waitForExpression: 'window.nothing' }), short),
      ).rejects.toMatchObject({
        message: expect.stringMatching(/still waiting for waitForExpression "window.nothing" \(to be truthy\)/),
      }),
    ]);
    expect(
      (await readPdf((await engine.render(parseRenderRequest({ htmlContent: '<p>next</p>' }))).pdf)).pages[0]!.text,
    ).toBe('next');
  });

  it('refuses a selector the page cannot parse, and waitForExpression when JavaScript is off', async () => {
    await expect(render({ waitForSelector: 'p[' })).rejects.toMatchObject({
      code: 'RENDER_PDF_FAILED',
      message: expect.stringContaining('waitForSelector "p[" is not a CSS selector'),
    });
    const noScript = createEngine({ executablePath, concurrency: 1, javascript: false });
    try {
      expect(() => noScript.check(parseRenderRequest({ htmlContent: late, waitForExpression: 'true' }))).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          fieldErrors: { waitForExpression: [expect.stringContaining('JavaScript, which is off')] },
        }),
      );
    } finally {
      await noScript.close();
    }
  });
});

describe('page size, media and ranges', () => {
  it('prints CSS @page size A5 only with preferCssPageSize', async () => {
    const without = (await render({ htmlContent: a5 })).read.pages[0]!;
    expect([without.width, without.height]).toEqual([8.5 * pt.in, 11 * pt.in]);
    const withIt = (await render({ htmlContent: a5, preferCssPageSize: true })).read.pages[0]!;
    expect(withIt.width).toBeCloseTo(148 * pt.mm, 0);
    expect(withIt.height).toBeCloseTo(210 * pt.mm, 0);
  });

  it('lays the document out for screen with emulatedMediaType, and for print again on the same page after', async () => {
    const once = createEngine({ executablePath, concurrency: 1 });
    try {
      const text = async (input: Partial<RenderRequestInput>) =>
        (await readPdf((await once.render(parseRenderRequest({ htmlContent: media, ...input }))).pdf)).pages[0]!.text;
      expect(await text({ emulatedMediaType: 'screen' })).toBe('Paper Screen only');
      expect(await text({})).toBe('Paper');
      expect(await text({ emulatedMediaType: 'print' })).toBe('Paper');
    } finally {
      await once.close();
    }
  });

  it('prints only the pages of pageRanges, and fails a range past the end by saying so', async () => {
    const second = await render({ htmlContent: threePages, pageRanges: '2' });
    expect(second.pages).toBe(1);
    expect(second.read.pages.map((page) => page.text)).toEqual(['Second page']);
    expect(
      (await render({ htmlContent: threePages, pageRanges: '1, 3-' })).read.pages.map((page) => page.text),
    ).toEqual(['First page', 'Third page']);
    await expect(render({ htmlContent: threePages, pageRanges: '5' })).rejects.toMatchObject({
      code: 'RENDER_PDF_FAILED',
      message: 'pageRanges "5" asks for a page past the end of the document',
    });
    // One range past the end fails the render even when another prints something (Chromium drops it silently).
    await expect(render({ htmlContent: threePages, pageRanges: '2,5' })).rejects.toMatchObject({
      code: 'RENDER_PDF_FAILED',
      message: 'pageRanges "2,5" asks for a page past the end of the document',
    });
    expect((await render({ htmlContent: threePages, pageRanges: '2-9' })).read.pages.map((page) => page.text)).toEqual([
      'Second page',
      'Third page',
    ]);
    // Past the page limit, it is refused before anything renders; within it, a document longer than the limit fails it rather than coming out cut short.
    const capped = createEngine({ executablePath, concurrency: 1, maxPages: 2 });
    try {
      expect(() => capped.check(parseRenderRequest({ htmlContent: threePages, pageRanges: '2, 3-' }))).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          fieldErrors: { pageRanges: ['asks for page 3, past the page limit of 2 (maxPages)'] },
        }),
      );
      expect(
        (
          await readPdf((await capped.render(parseRenderRequest({ htmlContent: threePages, pageRanges: '2' }))).pdf)
        ).pages.map((page) => page.text),
      ).toEqual(['Second page']);
      const fivePages = `<style>div { break-after: page }</style>${[1, 2, 3, 4, 5].map((n) => `<div>Page ${n}</div>`).join('')}`;
      await expect(
        capped.render(parseRenderRequest({ htmlContent: fivePages, pageRanges: '2-' })),
      ).rejects.toMatchObject({
        message: 'the document has more pages than the limit of 2 (maxPages)',
      });
    } finally {
      await capped.close();
    }
  });
});

describe('metadata', () => {
  it('writes the document information a PDF reader shows, and leaves the PDF as Chromium wrote it when not asked', async () => {
    const plain = await render({ htmlContent: '<title>Own title</title><p>x</p>' });
    const info = await readPdfInfo(plain.pdf);
    expect(info.Title).toBe('Own title');
    expect(info.Author).toBeUndefined();
    const tagged = await render({
      htmlContent: '<title>Own title</title><p>x</p>',
      metadata: {
        title: 'Quarterly report',
        author: 'Ada Lovelace',
        subject: 'Sales',
        keywords: ['north', 'q3 2026'],
        creator: 'Billing',
        creationDate: '2026-01-02T03:04:05Z',
      },
    });
    expect(await readPdfInfo(tagged.pdf)).toMatchObject({
      Title: 'Quarterly report',
      Author: 'Ada Lovelace',
      Subject: 'Sales',
      Keywords: 'north, q3 2026',
      Creator: 'Billing',
      CreationDate: expect.stringMatching(/^D:20260102030405/),
    });
    // An update appended to Chromium's bytes, not a rewrite of them.
    expect(Buffer.from(tagged.pdf.subarray(0, 5)).toString()).toBe('%PDF-');
    expect(tagged.bytes).toBe(tagged.pdf.byteLength);
    expect(tagged.read.pages[0]!.text).toBe('x');
  });
});

describe('first-page header and footer', () => {
  const header =
    '<div style="font-size: 10px">Running header, page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
  const footer = '<div style="font-size: 10px">Running footer <span class="pageNumber"></span></div>';
  const cover =
    '<div style="font-size: 10px">Cover header, page <span class="pageNumber"></span> of <span class="totalPages"></span></div>';
  const headings = '<style>h1 { break-after: page }</style><h1>One</h1><h1>Two</h1><h1>Three</h1>';
  const margins = { marginTop: '1in', marginBottom: '1in' };

  it('prints page 1 with its own header and no footer, pages 2+ with the running ones, each with the right numbers', async () => {
    const result = await render({
      htmlContent: headings,
      headerHtmlContent: header,
      footerHtmlContent: footer,
      firstPageHeaderHtmlContent: cover,
      firstPageFooterHtmlContent: '',
      outline: true,
      ...margins,
    });
    expect(result.pages).toBe(3);
    expect(result.read.pages.map(reading)).toEqual([
      'Cover header, page 1 of 3 One',
      'Running header, page 2 of 3 Two Running footer 2',
      'Running header, page 3 of 3 Three Running footer 3',
    ]);
    // Page 1 kept its place: the outline still finds all three headings.
    expect(result.read.outline).toEqual(['One', 'Two', 'Three']);
    // Without the fields, page 1 is like every other.
    expect(
      reading((await render({ htmlContent: headings, headerHtmlContent: header, ...margins })).read.pages[0]!),
    ).toBe('Running header, page 1 of 3 One');
  });

  it('keeps the running template on page 1 when only the other first-page field is given, and skips page 1 outside pageRanges', async () => {
    const onlyFooter = await render({
      htmlContent: headings,
      headerHtmlContent: header,
      firstPageFooterHtmlContent: footer,
      ...margins,
    });
    expect(onlyFooter.read.pages.map(reading)).toEqual([
      'Running header, page 1 of 3 One Running footer 1',
      'Running header, page 2 of 3 Two',
      'Running header, page 3 of 3 Three',
    ]);
    const laterPages = await render({
      htmlContent: headings,
      headerHtmlContent: header,
      firstPageHeaderHtmlContent: cover,
      pageRanges: '2-',
      ...margins,
    });
    expect(laterPages.read.pages.map(reading)).toEqual([
      'Running header, page 2 of 3 Two',
      'Running header, page 3 of 3 Three',
    ]);
  });
});

describe('relative URLs with no base', () => {
  it("reports a document's relative style sheets and images when it has no base URL, and nothing once it has one", async () => {
    const html =
      '<link rel="stylesheet" href="invoice.css"><img src="logo.svg"><img src="logo.svg"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><a href="next.html">next</a><img src="#x"><p>Upload</p>';
    const bare = createEngine({ executablePath, concurrency: 1 });
    try {
      const { network } = await bare.render(parseRenderRequest({ htmlContent: html }));
      const relative = network.failed.filter((issue) => issue.code === 'RELATIVE_URL');
      // Each once; not the link to another page, the data: image or the fragment.
      expect(relative.map((issue) => issue.url).sort()).toEqual(['invoice.css', 'logo.svg']);
      expect(relative[0]!.reason).toBe(
        'a relative URL in a document with no base URL (send absolute URLs, a <base href>, or url)',
      );
      const based = await bare.render(parseRenderRequest({ htmlContent: `<base href="${siteUrl}/reports/">${html}` }));
      expect(based.network.failed.filter((issue) => issue.code === 'RELATIVE_URL')).toEqual([]);
    } finally {
      await bare.close();
    }
  });
});

describe('url', () => {
  it("leaves nothing of a page's cookies or storage for the next caller on the same page", async () => {
    const one = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
    try {
      const leaver = `${siteUrl}/leave`;
      const reader = `${siteUrl}/read`;
      const pages = createServer((req, res) => {
        if (req.url === '/leave')
          return res
            .writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'secret=caller-a; Path=/' })
            .end(
              '<p>left</p><script>localStorage.setItem("secret", "caller-a"); sessionStorage.setItem("secret", "caller-a"); window.name = "caller-a";</script>',
            );
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            `<p id="seen"></p><script>document.getElementById("seen").textContent = "cookie=" + document.cookie + " local=" + localStorage.getItem("secret") + " session=" + sessionStorage.getItem("secret") + " name=" + window.name + " sent=" + ${JSON.stringify(String(req.headers.cookie ?? 'none'))};</script>`,
          );
      });
      await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
      const base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
      try {
        expect(
          (await readPdf((await one.render(parseRenderRequest({ url: leaver.replace(siteUrl, base) }))).pdf)).pages[0]!
            .text,
        ).toBe('left');
        const next = await readPdf((await one.render(parseRenderRequest({ url: reader.replace(siteUrl, base) }))).pdf);
        expect(next.pages[0]!.text).toBe('cookie= local=null session=null name= sent=none');
      } finally {
        pages.close();
      }
    } finally {
      await one.close();
    }
  });

  it('renders the page at a URL, its relative links resolved against it, under the network policy', async () => {
    const page = await engine.render(
      parseRenderRequest({
        url: `${siteUrl}/reports/q3.html`,
        preferCssPageSize: true,
        headerHtmlContent: '<div style="font-size: 10px"><span class="url"></span></div>',
        marginTop: '1in',
      }),
    );
    const read = await readPdf(page.pdf);
    // The style sheet came from the relative link: its @page size is the one printed.
    expect(read.pages[0]!.width).toBeCloseTo(148 * pt.mm, 0);
    expect(reading(read.pages[0]!)).toBe(`${siteUrl}/reports/q3.html Quarterly report Styled by a relative link`);
    await expect(engine.render(parseRenderRequest({ url: `${siteUrl}/reports/missing.html` }))).rejects.toMatchObject({
      code: 'RENDER_PDF_FAILED',
      message: `url ${siteUrl}/reports/missing.html answered HTTP 404`,
    });
  });

  it('refuses a private address by default, naming why, and the next render is clean', async () => {
    const guarded = createEngine({ executablePath, concurrency: 1 });
    try {
      await expect(guarded.render(parseRenderRequest({ url: `${siteUrl}/reports/q3.html` }))).rejects.toMatchObject({
        code: 'RENDER_PDF_FAILED',
        message: expect.stringMatching(
          new RegExp(`^url ${siteUrl}/reports/q3.html was not loaded: blocked by the network policy`),
        ),
      });
      expect(
        (await readPdf((await guarded.render(parseRenderRequest({ htmlContent: '<p>after</p>' }))).pdf)).pages[0]!.text,
      ).toBe('after');
    } finally {
      await guarded.close();
    }
  });
});

describe('through the server', () => {
  it('takes every new field over JSON and FormData on render-sync, and names a bad one', async () => {
    const server = await startServer({}, { engine });
    try {
      const json = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/pdf' },
        body: JSON.stringify({
          htmlContent: late,
          waitForExpression: 'window.ready',
          pageRanges: '1',
          metadata: { title: 'Over JSON' },
        }),
      });
      expect(json.status).toBe(200);
      const fromJson = new Uint8Array(await json.arrayBuffer());
      expect((await readPdf(fromJson)).pages.map((page) => page.text)).toEqual(['Always here Arrived late']);
      expect((await readPdfInfo(fromJson)).Title).toBe('Over JSON');

      const form = new FormData();
      form.set('htmlContent', `${a5}${media}`);
      form.set('preferCssPageSize', 'true');
      form.set('emulatedMediaType', 'screen');
      form.set('waitDelay', '100ms');
      form.set('metadata', JSON.stringify({ author: 'Over a form', keywords: 'one' }));
      form.set('firstPageHeaderHtmlContent', '<div style="font-size: 10px">Form cover</div>');
      form.set('marginTop', '1in');
      const multipart = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { accept: 'application/pdf' },
        body: form,
      });
      expect(multipart.status).toBe(200);
      const fromForm = new Uint8Array(await multipart.arrayBuffer());
      const page = (await readPdf(fromForm)).pages[0]!;
      expect(page.width).toBeCloseTo(148 * pt.mm, 0);
      expect(reading(page)).toBe('Form cover Paper Paper Screen only');
      expect(await readPdfInfo(fromForm)).toMatchObject({ Author: 'Over a form', Keywords: 'one' });

      const urlencoded = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/pdf' },
        body: new URLSearchParams({
          htmlContent: threePages,
          pageRanges: '2-3',
          emulatedMediaType: 'screen',
          waitForNetworkIdle: 'on',
          metadata: '{"creator":"urlencoded"}',
        }),
      });
      expect(urlencoded.status).toBe(200);
      const fromUrlencoded = new Uint8Array(await urlencoded.arrayBuffer());
      expect((await readPdf(fromUrlencoded)).pages.map((page) => page.text)).toEqual(['Second page', 'Third page']);
      expect((await readPdfInfo(fromUrlencoded)).Creator).toBe('urlencoded');

      const bad = await fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          htmlContent: 'x',
          pageRanges: '3-1',
          emulatedMediaType: 'tv',
          waitDelay: '25d',
          metadata: '{"titel":"x"}',
          waitForExpression: 'a b',
        }),
      });
      expect(bad.status).toBe(422);
      const { errors } = await bad.json();
      expect(Object.keys(errors).sort()).toEqual([
        'emulatedMediaType',
        'metadata',
        'pageRanges',
        'waitDelay',
        'waitForExpression',
      ]);
      expect(errors.waitDelay).toEqual([expect.stringContaining('must be at most 10 minutes')]);
    } finally {
      await server.close();
    }
  });

  it('renders them in the background on render-async, and refuses waitForExpression there when JavaScript is off', async () => {
    const hook = await receiver();
    const server = await startServer({}, { engine }, { realClock: true });
    const noScript = await startServer({ disableJavascript: true });
    const open = await startServer({ allowPrivateNetwork: true });
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const queued = await fetch(`${server.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          htmlContent: lateOnThird,
          identifier: 'opts-1',
          waitForSelector: '#late',
          pageRanges: '3',
          metadata: { subject: 'In the background', creationDate: '2026-11-23' },
        }),
      });
      expect(queued.status).toBe(202);
      await until(() => hook.received.length > 0, 'the webhook');
      const event = JSON.parse(hook.received[0]!.body) as { type: string; payload: { url: string; pages: number } };
      expect(event.type).toBe('PDF_RENDERED');
      expect(event.payload.pages).toBe(1);
      const pdf = new Uint8Array(await (await fetch(event.payload.url)).arrayBuffer());
      expect((await readPdf(pdf)).pages.map((page) => page.text)).toEqual(['Always here Arrived late']);
      expect(await readPdfInfo(pdf)).toMatchObject({
        Subject: 'In the background',
        CreationDate: expect.stringMatching(/^D:20261123/),
      });

      // url over both endpoints: refused by a server with the default policy (the test site is on loopback), rendered where private addresses are allowed.
      const byUrl = (on: string) =>
        fetch(`${on}/api/pdfs/render-sync`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/pdf' },
          body: JSON.stringify({ url: `${siteUrl}/reports/q3.html` }),
        });
      const refusedUrl = await byUrl(noScript.url);
      expect(refusedUrl.status).toBe(400);
      expect((await refusedUrl.json()).message).toMatch(/was not loaded/);
      const allowed = await byUrl(open.url);
      expect(allowed.status).toBe(200);
      expect((await readPdf(new Uint8Array(await allowed.arrayBuffer()))).pages[0]!.text).toBe(
        'Quarterly report Styled by a relative link',
      );
      await open.deps.webhooks.add(hook.url, Date.now());
      const queuedUrl = await fetch(`${open.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${siteUrl}/reports/q3.html`, identifier: 'by-url' }),
      });
      expect(queuedUrl.status).toBe(202);
      await until(() => hook.received.length > 1, 'the second webhook');
      const byUrlEvent = JSON.parse(hook.received[1]!.body) as { payload: { url: string } };
      expect(
        (await readPdf(new Uint8Array(await (await fetch(byUrlEvent.payload.url)).arrayBuffer()))).pages[0]!.text,
      ).toBe('Quarterly report Styled by a relative link');

      const refused = await fetch(`${noScript.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ htmlContent: late, identifier: 'opts-2', waitForExpression: 'window.ready' }),
      });
      expect(refused.status).toBe(422);
      expect((await refused.json()).errors).toEqual({
        waitForExpression: [expect.stringContaining('JavaScript, which is off')],
      });
    } finally {
      await server.close();
      await noScript.close();
      await open.close();
      hook.close();
    }
  });
});

describe('through the CLI (in-process, on warm engines)', () => {
  it('takes every new field as a flag', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'doc.html'), `${a5}${media}${lateOnThird}`);
    await writeFile(
      join(dir, 'cover.html'),
      '<div style="font-size: 10px">Flag cover <span class="totalPages"></span></div>',
    );
    const out = join(dir, 'doc.pdf');
    const run = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '-o',
      out,
      '-q',
      '--prefer-css-page-size',
      '--emulated-media-type',
      'screen',
      '--page-ranges',
      '3',
      '--wait-for-selector',
      '#late',
      '--wait-for-expression',
      'window.ready',
      '--wait-delay',
      '100',
      '--wait-for-network-idle',
      '--metadata',
      '{"title":"From flags"}',
    ]);
    const covered = join(dir, 'covered.pdf');
    const withCover = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '-o',
      covered,
      '-q',
      '--first-page-header',
      join(dir, 'cover.html'),
      '--margin-top',
      '1in',
    ]);
    expect(withCover.code).toBe(0);
    expect(reading((await readPdf(await readFile(covered))).pages[0]!)).toBe('Flag cover 3 Paper Paper First page');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const pdf = await readFile(out);
    const read = await readPdf(pdf);
    expect(read.pages.map((page) => page.text)).toEqual(['Always here Arrived late']);
    expect(read.pages[0]!.width).toBeCloseTo(148 * pt.mm, 0);
    expect((await readPdfInfo(pdf)).Title).toBe('From flags');

    const never = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '-o',
      join(dir, 'never.pdf'),
      '-q',
      '--wait-for-selector',
      '#never',
      '--timeout',
      '1s',
    ]);
    expect(never.code).toBe(1);
    expect(never.stderr).toContain('still waiting for waitForSelector "#never"');
    // A URL as an input, named after the page in --out-dir.
    const fromUrl = await cli.run(['render', `${siteUrl}/reports/q3.html`, '--out-dir', join(dir, 'pages'), '-q']);
    expect(fromUrl.code).toBe(0);
    expect((await readPdf(await readFile(join(dir, 'pages', 'q3.pdf')))).pages[0]!.text).toBe(
      'Quarterly report Styled by a relative link',
    );
    // A request file that names a URL is a document of its own, named after the file.
    await writeFile(
      join(dir, 'q3-request.json'),
      JSON.stringify({
        url: `${siteUrl}/reports/q3.html`,
        metadata: { title: 'From a request file' },
        pageRanges: '1',
      }),
    );
    const fromRequest = await cli.run(['render', '--request', join(dir, 'q3-request.json'), '-q']);
    expect(fromRequest.code).toBe(0);
    const requested = await readFile(join(dir, 'q3-request.pdf'));
    expect((await readPdf(requested)).pages[0]!.text).toBe('Quarterly report Styled by a relative link');
    expect((await readPdfInfo(requested)).Title).toBe('From a request file');
    // An input replaces the request file's document, whichever kind either is.
    const overFile = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '--request',
      join(dir, 'q3-request.json'),
      '-o',
      join(dir, 'over.pdf'),
      '-q',
    ]);
    expect(overFile.code).toBe(0);
    expect(reading((await readPdf(await readFile(join(dir, 'over.pdf')))).pages[0]!)).toBe('Paper Paper First page');
    const nested = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '-o',
      join(dir, 'nested.pdf'),
      '--metadata',
      '{"creationDate":"yesterday"}',
    ]);
    expect(nested.code).toBe(2);
    expect(nested.stderr).toContain('--metadata creationDate: must be an ISO 8601 date');
    const off = await cli.run([
      'render',
      join(dir, 'doc.html'),
      '-o',
      join(dir, 'off.pdf'),
      '--disable-javascript',
      '--wait-for-expression',
      'window.ready',
    ]);
    expect(off.code).toBe(2);
    expect(off.stderr).toContain('--wait-for-expression');
  });
});

describe('a name that does not resolve', () => {
  it('is one kind of report whatever the scheme: failed where every address is allowed, blocked under the public-only policy', async () => {
    // A DNS answer of the test's choosing: nothing for any name.
    const resolver = async (name: string): Promise<string[]> => {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    };
    const html = '<p>x</p><img src="http://nowhere.test/a.png"><img src="https://nowhere.test/b.png">';
    for (const [network, list, expected] of [
      ['all', 'failed', { code: 'LOAD_FAILED', reason: 'net::ERR_NAME_NOT_RESOLVED' }],
      [
        'public',
        'blocked',
        { code: 'NETWORK_POLICY', reason: 'blocked by the network policy (public addresses only)' },
      ],
    ] as const) {
      const one = createEngine({ executablePath, concurrency: 1, network: { network }, resolver });
      try {
        const report = (await one.render(parseRenderRequest({ htmlContent: html }))).network;
        const issues = report[list].filter((issue) => issue.url.includes('nowhere.test'));
        expect(issues.map((issue) => issue.url).sort(), network).toEqual([
          'http://nowhere.test/a.png',
          'https://nowhere.test/b.png',
        ]);
        for (const issue of issues) expect(issue, network).toMatchObject(expected);
        expect(
          report[list === 'failed' ? 'blocked' : 'failed'].filter((issue) => issue.url.includes('nowhere.test')),
          network,
        ).toEqual([]);
      } finally {
        await one.close();
      }
    }
  });
});
