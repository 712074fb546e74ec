/**
 * `pdfrender serve --playground` (issue 14, item 5): the page at / driven in a real browser
 * (Chromium through puppeteer) against a real server: typed HTML and a changed option come back as
 * a new PDF beside the editor; its curl command and JSON body give the same PDF; bad fields, the rate
 * limit and API keys are shown; nothing is fetched from another origin. Then the setting: on by
 * default on loopback, off elsewhere, and the flag and its variable.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { startServe } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

let engine: Engine;
let browser: Browser;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 20_000 });
  // A browser as a user's: its own, apart from the one that renders.
  browser = await puppeteer.launch({ executablePath, headless: 'shell', args: ['--no-sandbox'] });
});

afterAll(async () => {
  await browser?.close();
  await engine?.close();
  await removeTempDirs();
});

interface Visit {
  page: Page;
  context: BrowserContext;
  /** Every URL the page asked for. */
  requests: string[];
  /** The page's console errors (a Content-Security-Policy refusal among them). */
  errors: string[];
  /** A page of the same origin without the playground's policy, which keeps its own page from fetching blob: URLs. */
  reader: Page;
}

/** Open the playground in a fresh browser context (its own storage), recording what it asks for. */
async function visit(server: TestServer): Promise<Visit> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => void requests.push(request.url()));
  page.on('console', (message) => void (message.type() === 'error' && errors.push(message.text())));
  page.on('pageerror', (error) => void errors.push(String(error)));
  const response = await page.goto(`${server.url}/`);
  expect(response?.status()).toBe(200);
  const reader = await context.newPage();
  await reader.goto(`${server.url}/healthz`);
  return { page, context, requests, errors, reader };
}

const status = (page: Page) =>
  page.$eval('#status', (element) => ({
    state: (element as HTMLElement).dataset.state,
    text: element.textContent ?? '',
  }));

/** Wait until the frame shows the PDF of the request the JSON box shows now, and answer its bytes. */
async function shownPdf({ page, reader }: Visit): Promise<Buffer> {
  await page.waitForFunction(
    () =>
      document.getElementById('status')!.dataset.state === 'ok' &&
      document.getElementById('pdf')!.dataset.request ===
        (document.getElementById('json-body') as HTMLTextAreaElement).value,
    { timeout: 30_000 },
  );
  // The bytes behind the frame's blob: URL, which any page of the origin may read while the playground lives.
  const source = await page.$eval('#pdf', (frame) => (frame as HTMLIFrameElement).src.split('#')[0]!);
  expect(source).toMatch(/^blob:/);
  const base64 = await reader.evaluate(async (url) => {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    let binary = '';
    for (let start = 0; start < bytes.length; start += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(start, start + 0x8000));
    return btoa(binary);
  }, source);
  return Buffer.from(base64, 'base64');
}

/** Replace the text of a field by typing, as a person does. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.$eval(selector, (element) => void ((element as HTMLInputElement).value = ''));
  await page.type(selector, text);
}

describe('the playground page', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({}, { engine });
  });
  afterAll(() => server?.close());

  it('renders what is typed, with a changed option, beside the editor, and gives the same request as curl and as JSON', async () => {
    const visited = await visit(server);
    const { page, context, requests, errors } = visited;
    // The sample renders at once.
    expect((await readPdf(await shownPdf(visited))).pages[0]!.text).toContain('Hello from pdfrender');

    await typeInto(page, '#field-htmlContent', '<h1>Quarterly report</h1><p>Typed in the playground</p>');
    await page.select('#paper-format', 'A5');
    await page.click('#field-landscape');
    const pdf = await shownPdf(visited);
    const [first] = (await readPdf(pdf)).pages;
    expect(first!.text).toContain('Quarterly report Typed in the playground');
    // The sample's footer is still there, filled in.
    expect(first!.text).toContain('page 1 of 1');
    // A5 turned on its side (Chromium rounds metric sizes through whole CSS pixels: 595.92 x 420).
    expect([first!.width, first!.height]).toEqual([expect.closeTo(595.92, 1), expect.closeTo(420, 1)]);
    expect(await page.$eval('#status', (element) => (element as HTMLElement).dataset.bytes)).toBe(String(pdf.length));

    const body = await page.$eval('#json-body', (element) => (element as HTMLTextAreaElement).value);
    expect(JSON.parse(body)).toMatchObject({
      htmlContent: '<h1>Quarterly report</h1><p>Typed in the playground</p>',
      landscape: true,
      paperWidth: '148mm',
      paperHeight: '210mm',
    });
    // Only what differs from the defaults is sent.
    expect(Object.keys(JSON.parse(body)).sort()).toEqual([
      'footerHtmlContent',
      'htmlContent',
      'landscape',
      'paperHeight',
      'paperWidth',
    ]);
    const fromBody = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body,
    });
    const bodyPdf = (await readPdf(new Uint8Array(await fromBody.arrayBuffer()))).pages[0]!;
    expect([bodyPdf.text, bodyPdf.width, bodyPdf.height]).toEqual([first!.text, first!.width, first!.height]);

    const curl = await page.$eval('#curl', (element) => (element as HTMLTextAreaElement).value);
    expect(curl).toContain(`curl -sS '${server.url}/api/pdfs/render-sync'`);
    expect(curl).toContain("-H 'Accept: application/pdf'");
    expect(curl).toMatch(/-o out\.pdf$/);
    expect(curl).not.toContain('Authorization');
    if (hasCurl) {
      // Run as a person pastes it into a shell.
      const dir = await tempDir();
      await promisify(execFile)('sh', ['-c', curl], { cwd: dir });
      const curlPdf = (await readPdf(await readFile(join(dir, 'out.pdf')))).pages[0]!;
      expect([curlPdf.text, curlPdf.width, curlPdf.height]).toEqual([first!.text, first!.width, first!.height]);
    }

    // Everything came from the server itself: no CDN, no font service.
    const foreign = requests.filter(
      (url) => !url.startsWith(`${server.url}/`) && !url.startsWith(`blob:${server.url}/`) && !url.startsWith('data:'),
    );
    expect(foreign).toEqual([]);
    expect(requests).toContain(`${server.url}/playground.js`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("shows a bad request's field messages and marks the field", async () => {
    const visited = await visit(server);
    const { page, context } = visited;
    await shownPdf(visited);
    await typeInto(page, '#field-marginTop', '3 parsecs');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'error', { timeout: 30_000 });
    expect((await status(page)).text).toBe('VALIDATION_FAILED: the request has bad fields');
    expect(await page.$eval('#problems', (element) => element.textContent)).toMatch(/^marginTop: .*parsecs/);
    expect(await page.$eval('#field-marginTop', (element) => element.getAttribute('aria-invalid'))).toBe('true');
    // Fixed, it renders again.
    await typeInto(page, '#field-marginTop', '1in');
    await shownPdf(visited);
    expect(await page.$eval('#field-marginTop', (element) => element.getAttribute('aria-invalid'))).toBeNull();
    await context.close();
  });

  it('shows the preflight report beside the PDF, a line per kind of problem or "no problems found", as text whatever it holds', async () => {
    const visited = await visit(server);
    const { page, context } = visited;
    const reportText = () => page.$eval('#report', (element) => (element as HTMLElement).innerText);
    await shownPdf(visited);
    expect(await reportText()).toBe('Preflight report\nno problems found');
    // Chromium refuses port 1 itself (net::ERR_UNSAFE_PORT): one resource error, named.
    await typeInto(page, '#field-htmlContent', '<p>Broken</p><img src="http://127.0.0.1:1/missing.png">');
    await shownPdf(visited);
    expect(await page.$eval('#report .kind-resourceErrors', (element) => (element as HTMLElement).innerText)).toBe(
      'resources that did not load: 1\nhttp://127.0.0.1:1/missing.png: net::ERR_UNSAFE_PORT',
    );

    // A report holding markup (the caller's own URLs and messages can): shown as text, never run.
    const real = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body: JSON.stringify({ htmlContent: '<p>x</p>' }),
    });
    const report = JSON.parse(real.headers.get('x-pdfrender-report')!);
    const hostile = '<img src=x onerror="window.pwned=1"><b>bold</b>';
    report.resources.failed = [{ url: `http://cdn.test/${hostile}`, code: 'HTTP_ERROR', reason: hostile }];
    const pdf = Buffer.from(await real.arrayBuffer());
    await page.setRequestInterception(true);
    page.on('request', (request) =>
      request.url().endsWith('/api/pdfs/render-sync') && request.method() === 'POST'
        ? void request.respond({
            status: 200,
            headers: { 'Content-Type': 'application/pdf', 'X-Pdfrender-Report': JSON.stringify(report) },
            body: pdf,
          })
        : void request.continue(),
    );
    await typeInto(page, '#field-htmlContent', '<p>Hostile report</p>');
    await shownPdf(visited);
    expect(await reportText()).toContain(`http://cdn.test/${hostile}: ${hostile}`);
    expect(await page.$$eval('#report img, #report b', (found) => found.length)).toBe(0);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await context.close();
  });

  it('sets a Content-Security-Policy that allows its own origin only, and blob: for the PDF frame', async () => {
    const response = await fetch(`${server.url}/`);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).toContain('frame-src blob:');
    // GET only: anything else is a 405 naming it.
    const post = await fetch(`${server.url}/`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});

describe('the playground against the rate limit and API keys', () => {
  it('shows a 429 with the time to wait', async () => {
    const server = await startServer({ rateLimit: 1 }, { engine });
    try {
      const visited = await visit(server);
      const { page, context } = visited;
      await shownPdf(visited);
      await page.click('button[type=submit]');
      await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'error', {
        timeout: 30_000,
      });
      expect((await status(page)).text).toMatch(/^RATE_LIMITED: rate limit reached; trying again in \d+ s$/);
      await context.close();
    } finally {
      await server.close();
    }
  });

  it('asks for the key, keeps it in the tab only, and sends it as a bearer token', async () => {
    const server = await startServer({ apiKeys: ['play-key-1'] }, { engine });
    try {
      const visited = await visit(server);
      const { page, context } = visited;
      await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'error', {
        timeout: 30_000,
      });
      expect((await status(page)).text).toMatch(/^MISSING_API_KEY: /);
      expect(await page.$eval('#key-field', (element) => (element as HTMLElement).hidden)).toBe(false);
      await page.type('#api-key', 'play-key-1');
      await page.keyboard.press('Tab'); // a change event
      expect((await readPdf(await shownPdf(visited))).pages[0]!.text).toContain('Hello from pdfrender');
      expect(await page.$eval('#curl', (element) => (element as HTMLTextAreaElement).value)).toContain(
        "-H 'Authorization: Bearer play-key-1'",
      );
      const storage = await page.evaluate(() => ({
        session: JSON.stringify(sessionStorage),
        local: JSON.stringify(localStorage),
      }));
      expect(storage.session).toContain('play-key-1');
      expect(storage.local).not.toContain('play-key-1');
      await context.close();
    } finally {
      await server.close();
    }
  });
});

describe('the playground setting', () => {
  const config = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
    loadServeConfig(flags, env, '/srv').playground;

  it('is on by default on loopback, off elsewhere or behind --public-url', () => {
    expect(['127.0.0.1', '::1', 'localhost', '127.0.0.2'].map((host) => config({ host }))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['0.0.0.0', '::', '192.168.1.20'].map((host) => config({ host }))).toEqual([false, false, false]);
    expect(config({ publicUrl: 'https://pdf.example.com' })).toBe(false);
  });

  it('takes --playground / --no-playground over PDFRENDER_PLAYGROUND over the default', () => {
    expect(config({ playground: false })).toBe(false);
    expect(config({ host: '0.0.0.0', playground: true })).toBe(true);
    expect(config({ host: '0.0.0.0' }, { PDFRENDER_PLAYGROUND: 'yes' })).toBe(true);
    expect(config({}, { PDFRENDER_PLAYGROUND: 'OFF' })).toBe(false);
    expect(config({ playground: true }, { PDFRENDER_PLAYGROUND: '0' })).toBe(true);
    expect(config({}, { PDFRENDER_PLAYGROUND: '' })).toBe(true);
    expect(() => config({}, { PDFRENDER_PLAYGROUND: 'maybe' })).toThrow(
      '--playground (PDFRENDER_PLAYGROUND): must be true or false (or 1/0, on/off, yes/no); got "maybe"',
    );
  });

  it('serves / from `pdfrender serve` on loopback, a 404 with --no-playground, and says when the page is public', async () => {
    const get = (url: string, method = 'GET') =>
      fetch(`${url}/`, { method }).then(async (response) => ({
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      }));
    const on = await startServe(['--data-dir', await tempDir()]);
    const off = await startServe(['--no-playground', '--data-dir', await tempDir()]);
    const proxied = await startServe([
      '--playground',
      '--public-url',
      'https://pdf.example.com',
      '--data-dir',
      await tempDir(),
    ]);
    try {
      expect(await get(on.url)).toMatchObject({ status: 200, type: 'text/html; charset=utf-8' });
      await until(
        () => on.stderr().includes(`pdfrender: playground at ${on.url}/ (--no-playground turns it off)`),
        'the playground line',
      );
      expect(await get(off.url)).toEqual({
        status: 404,
        type: 'application/json',
        body: JSON.stringify({ outcome: 'NOT_FOUND', message: 'no route for GET /' }),
      });
      // Off, / is no route at all: not a 405 either.
      expect((await get(off.url, 'POST')).status).toBe(404);
      expect((await fetch(`${off.url}/playground.js`)).status).toBe(404);
      expect(off.stderr()).not.toMatch(/^pdfrender: .*playground/m);
      expect((await get(proxied.url)).status).toBe(200);
      await until(
        () => proxied.stderr().includes('pdfrender: the playground at / is public'),
        'the public playground line',
      );
    } finally {
      for (const server of [on, off, proxied]) server.child.kill('SIGTERM');
      await Promise.all([on.exited, off.exited, proxied.exited]);
    }
  });
});
