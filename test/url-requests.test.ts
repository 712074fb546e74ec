/**
 * What a `url` document's requests carry (issue 28 §4). userAgent: its own request and its
 * subresources' send the caller's User-Agent, and navigator.userAgent answers it. cookies: its own
 * request and its requests to the same host carry the caller's cookies, a request to another site
 * does not. extraHttpHeaders: its own request and its requests to its origin carry them, a request
 * to another origin (or redirected to one) does not unless extraHttpHeadersOrigins names it. None
 * carries over to the next document on the same pooled page. Values that could not be a header, or
 * could smuggle a cookie attribute, are refused naming the field. One loopback server, reached as
 * two sites: 127.0.0.1 (the document's) and 127.0.0.2 (a third party's).
 */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../src/engine/engine.js';
import { isPdfRenderError } from '../src/errors.js';
import { parseRenderRequest } from '../src/request.js';
import { executablePath } from './support/browser.js';
import { inProcessCli } from './support/cli-in-process.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf } from './support/pdf.js';

// One page, so every render reuses it; loopback allowed, for the site.
const engine = createEngine({ executablePath, concurrency: 1, network: { network: 'all', allowHosts: [] } });
/** Every request the site answered: where (host and path), its User-Agent, Cookie and Authorization headers. */
const seen: Array<{ where: string; agent: string; cookie: string; auth: string }> = [];
const site = createServer((req, res) => {
  seen.push({
    where: `${req.headers.host}${req.url}`,
    agent: req.headers['user-agent'] ?? '',
    cookie: req.headers.cookie ?? '',
    auth: req.headers.authorization ?? '',
  });
  const third = `http://127.0.0.2:${(site.address() as AddressInfo).port}`;
  // A same-origin image that redirects to the third party.
  if (req.url === '/hop.png') return void res.writeHead(302, { Location: `${third}/hopped.png` }).end();
  if (req.url !== '/page') return void res.writeHead(404).end();
  res
    .writeHead(200, { 'Content-Type': 'text/html' })
    .end(
      `<p>HEADER=[${req.headers['user-agent']}]</p><p>COOKIE=[${req.headers.cookie ?? ''}]</p><p id="js"></p>` +
        `<p>AUTH=[${req.headers.authorization ?? ''}] TENANT=[${req.headers['x-tenant'] ?? ''}]</p>` +
        `<img src="/own.png"><img src="${third}/third.png"><img src="/hop.png">` +
        `<script>document.getElementById('js').textContent = 'JS=[' + navigator.userAgent + ']';</script>`,
    );
});
let url: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => site.listen(0, '0.0.0.0', resolve));
  url = `http://127.0.0.1:${(site.address() as AddressInfo).port}/page`;
});
const cli = inProcessCli();
afterAll(async () => {
  await engine.close();
  await cli.close();
  site.close();
  await removeTempDirs();
});

/** Render `url` with `fields`: the PDF's text, and what the site saw of it. */
async function render(fields: Record<string, unknown>) {
  seen.length = 0;
  const { pdf } = await engine.render(parseRenderRequest({ url, ...fields }));
  return {
    text: (await readPdf(pdf)).pages[0]!.text,
    at: (suffix: string) => seen.find((r) => r.where.endsWith(suffix)),
  };
}

/** The fields a refused request names, or 'accepted'. */
function refusal(fields: Record<string, unknown>): string[] | 'accepted' {
  try {
    parseRenderRequest(fields);
  } catch (error) {
    if (isPdfRenderError(error, 'VALIDATION_FAILED')) return Object.keys(error.fieldErrors ?? {});
    throw error;
  }
  return 'accepted';
}

describe('userAgent', () => {
  it("is what a url document's requests send and navigator.userAgent answers, and the next document has Chromium's own", async () => {
    const agent = 'InvoiceBot/2.1 (+https://example.com/bot)';
    const first = await render({ userAgent: agent });
    expect(first.text).toContain(`HEADER=[${agent}]`);
    expect(first.text).toContain(`JS=[${agent}]`);
    expect(first.at('/own.png')?.agent).toBe(agent);
    const next = await render({});
    expect(next.text).toMatch(/HEADER=\[Mozilla\/5\.0 [^\]]*Chrome/);
    expect(next.text).not.toContain('InvoiceBot');
  });

  it('refuses a value that cannot be an HTTP header, naming the field', () => {
    expect(refusal({ url: 'https://example.com/', userAgent: 'line\nbreak' })).toEqual(['userAgent']);
  });
});

describe('cookies', () => {
  it("go with a url document's requests to its own host only, and not to the next document", async () => {
    const first = await render({ cookies: { session: 'abc123', lang: 'de' } });
    expect(first.text).toContain('COOKIE=[session=abc123; lang=de]');
    expect(first.at('/own.png')?.cookie).toBe('session=abc123; lang=de');
    expect(first.at('/third.png')?.cookie).toBe('');
    expect((await render({})).text).toContain('COOKIE=[]');
  });

  it('refuse what could smuggle an attribute, and cookies without a url, naming the field', () => {
    expect(refusal({ url, cookies: { session: 'a; Domain=evil.example' } })).toEqual(['cookies.session']);
    expect(refusal({ url, cookies: { 'bad name': 'a' } })).toEqual([expect.stringMatching(/^cookies/)]);
    expect(refusal({ htmlContent: '<p>x</p>', cookies: { session: 'a' } })).toEqual(['cookies']);
  });
});

describe('extraHttpHeaders', () => {
  const headers = { Authorization: 'Bearer t0ken', 'X-Tenant': 'acme' };

  it("go with a url document's requests to its own origin only, not where a redirect leads off it, and not to the next document", async () => {
    // With cookies too: the headers added keep the cookies Chromium adds.
    const first = await render({ extraHttpHeaders: headers, cookies: { session: 'abc123' } });
    expect(first.text).toContain('AUTH=[Bearer t0ken] TENANT=[acme]');
    expect(first.text).toContain('COOKIE=[session=abc123]');
    expect(first.at('/own.png')?.auth).toBe('Bearer t0ken');
    expect(first.at('/hop.png')?.auth).toBe('Bearer t0ken');
    expect(first.at('/hopped.png')?.auth).toBe('');
    expect(first.at('/third.png')?.auth).toBe('');
    const next = await render({});
    expect(next.text).toContain('AUTH=[] TENANT=[]');
    expect(next.at('/own.png')?.auth).toBe('');
  });

  it('go to the origins extraHttpHeadersOrigins adds, given as a list or a string', async () => {
    const third = `http://127.0.0.2:${new URL(url).port}`;
    for (const origins of [[third], `${third}/`]) {
      const widened = await render({ extraHttpHeaders: headers, extraHttpHeadersOrigins: origins });
      expect(widened.at('/third.png')?.auth).toBe('Bearer t0ken');
      expect(widened.at('/hopped.png')?.auth).toBe('Bearer t0ken');
    }
  });

  it('are the --extra-http-headers and --extra-http-headers-origins flags of pdfrender render', async () => {
    const out = join(await tempDir(), 'page.pdf');
    seen.length = 0;
    const third = `http://127.0.0.2:${new URL(url).port}`;
    const run = await cli.run([
      ...['render', url, '-o', out, '-q'],
      ...['--extra-http-headers', JSON.stringify(headers), '--extra-http-headers-origins', third],
    ]);
    expect(run.stderr).toBe('');
    expect((await readPdf(await readFile(out))).pages[0]!.text).toContain('AUTH=[Bearer t0ken] TENANT=[acme]');
    expect(seen.find((r) => r.where.endsWith('/third.png'))?.auth).toBe('Bearer t0ken');
  });

  it('refuse names the browser sets, values with line breaks, and headers that go nowhere, naming the field', () => {
    expect(refusal({ url, extraHttpHeaders: { Host: 'evil.example', 'Content-Length': '0' } })).toEqual([
      'extraHttpHeaders.Host',
      'extraHttpHeaders.Content-Length',
    ]);
    expect(refusal({ url, extraHttpHeaders: { 'X-A': 'a\r\nX-B: b' } })).toEqual(['extraHttpHeaders.X-A']);
    expect(refusal({ url, extraHttpHeaders: { Cookie: 'a=b' } })).toEqual(['extraHttpHeaders.Cookie']);
    expect(refusal({ htmlContent: '<p>x</p>', extraHttpHeaders: headers })).toEqual(['extraHttpHeaders']);
    expect(refusal({ url, extraHttpHeaders: headers, extraHttpHeadersOrigins: ['https://cdn.example/path'] })).toEqual([
      'extraHttpHeadersOrigins.0',
    ]);
  });
});

describe('extraHttpHeaders over https', () => {
  it('reach an https document, whose requests pass the egress proxy as tunnels it cannot add to', async () => {
    // A certificate of the moment for 127.0.0.1, which this engine's Chromium is told to accept.
    const dir = await tempDir();
    const [keyFile, certFile] = [join(dir, 'key.pem'), join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', keyFile, '-out', certFile],
      ],
      { stdio: 'ignore' },
    );
    const tls = createTlsServer({ key: await readFile(keyFile), cert: await readFile(certFile) }, (req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<p>AUTH=[${req.headers.authorization ?? ''}]</p>`),
    );
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    const secure = createEngine({
      executablePath,
      concurrency: 1,
      network: { network: 'all', allowHosts: [] },
      browserArgs: ['--ignore-certificate-errors'],
    });
    try {
      const page = `https://127.0.0.1:${(tls.address() as AddressInfo).port}/`;
      const { pdf } = await secure.render(
        parseRenderRequest({ url: page, extraHttpHeaders: { Authorization: 'Bearer t0ken' } }),
      );
      expect((await readPdf(pdf)).pages[0]!.text).toBe('AUTH=[Bearer t0ken]');
    } finally {
      await secure.close();
      tls.close();
    }
  });
});
