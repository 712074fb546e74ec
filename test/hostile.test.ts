/**
 * Hostile documents and bodies, rendered through a real server with its default (public-only)
 * network policy. For every case: the status, a canary HTTP server on loopback that must receive
 * nothing, a secret file whose contents must not appear in the PDF, and an ordinary render after
 * it that must still succeed. Host names resolve through a DNS answer the test gives.
 */
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createSocket } from 'node:dgram';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { browsersOf } from './support/chromium-processes.js';
import { folderWith, removeTempDirs } from './support/files.js';
import { startGate } from './support/gate.js';
import { maxFormFields } from '../src/server/routes/body-shape.js';
import { readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

const secret = 'SECRET-CANARY-7f3a9c';
let server: TestServer;
let canary: { server: Server; port: number; hits: string[] };
let canary6: { server: Server; port: number; hits: string[] };
let redirector: { server: Server; port: number };
let secretUrl: string;

async function listen(host: string, handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void) {
  const s = createServer(handler);
  await new Promise<void>((resolve) => s.listen(0, host, resolve));
  return { server: s, port: (s.address() as AddressInfo).port };
}

/** A loopback server that records every connection (TLS and TURN included), request and upgrade it gets. */
async function startCanary(host: string) {
  const hits: string[] = [];
  const started = await listen(host, (req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Content-Type': 'text/plain', 'Access-Control-Allow-Origin': '*' }).end(secret);
  });
  started.server.on('connection', (socket) =>
    hits.push(`CONNECTION from ${socket.remoteAddress}:${socket.remotePort}`),
  );
  started.server.on('upgrade', (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  started.server.on('connect', (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  return { ...started, hits };
}

beforeAll(async () => {
  canary = await startCanary('127.0.0.1');
  canary6 = await startCanary('::1');
  // An allowed host (by --allow-host) that redirects every request to the canary on loopback.
  redirector = await listen('127.0.0.1', (_req, res) =>
    res.writeHead(302, { Location: `http://127.0.0.1:${canary.port}/redirected` }).end(),
  );
  const dir = await folderWith({ 'secret.txt': secret });
  secretUrl = pathToFileURL(join(dir, 'secret.txt')).href;
  // rebind.test and redirector.test resolve to loopback: the DNS answer an attacker would arrange.
  const resolver = async (host: string) =>
    host === 'rebind.test' || host === 'redirector.test'
      ? ['127.0.0.1']
      : Promise.reject(Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' }));
  server = await startServer({ rateLimit: 100_000, timeout: '4s', allowHosts: ['redirector.test'] }, undefined, {
    resolver,
  });
});

afterAll(async () => {
  // Nothing reached the canaries, late arrivals after the last case included.
  expect(canary.hits).toEqual([]);
  expect(canary6.hits).toEqual([]);
  await server?.close();
  canary?.server.close();
  canary6?.server.close();
  redirector?.server.close();
  await removeTempDirs();
});

afterEach(async () => {
  // The service keeps working after every case.
  const response = await render('<h1>Ordinary</h1>');
  expect(response.status).toBe(200);
  expect((await readPdf(await pdfOf(response))).pages[0]!.text).toContain('Ordinary');
  expect(canary.hits).toEqual([]);
  expect(canary6.hits).toEqual([]);
});

function render(htmlContent: string, extra: Record<string, unknown> = {}, on: TestServer = server) {
  return fetch(`${on.url}/api/pdfs/render-sync`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ htmlContent, ...extra }),
  });
}

async function pdfOf(response: Response): Promise<Uint8Array> {
  const body = await response.json();
  return new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer());
}

/** Page 1's text of a render that must have succeeded; a refusal's own words in the failure. */
async function okText(response: Response): Promise<string> {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  const pdf = new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer());
  return (await readPdf(pdf)).pages[0]!.text;
}

/** Render, expect 200, and return the body and the PDF's text. */
async function renderOk(htmlContent: string, extra: Record<string, unknown> = {}) {
  const response = await render(htmlContent, extra);
  const body = await response.json();
  // A refusal names why (a wait never met, the deadline), not only its status.
  expect(response.status, JSON.stringify(body)).toBe(200);
  const pdf = new Uint8Array(await (await fetch(body.fileUrl)).arrayBuffer());
  const text = (await readPdf(pdf)).pages.map((page) => page.text).join('\n');
  expect(text).not.toContain(secret);
  return { body, text, headers: response.headers };
}

/** Loopback, written every way a URL can write it. */
const loopbackTargets = () => [
  `http://127.0.0.1:${canary.port}/plain`,
  `http://localhost:${canary.port}/name`,
  `HTTP://LOCALHOST.:${canary.port}/upper-trailing-dot`,
  `http://2130706433:${canary.port}/decimal`,
  `http://0x7f000001:${canary.port}/hex`,
  `http://0177.0.0.1:${canary.port}/octal`,
  `http://127.1:${canary.port}/short`,
  `http://[::ffff:127.0.0.1]:${canary.port}/mapped`,
  `http://[::1]:${canary6.port}/ipv6`,
  `http://rebind.test:${canary.port}/dns`,
  `http://redirector.test:${redirector.port}/redirect`,
  `https://127.0.0.1:${canary.port}/tls`,
];

const vectors: Record<string, (url: string) => string> = {
  iframe: (url) => `<iframe src="${url}"></iframe>`,
  img: (url) => `<img src="${url}">`,
  'CSS @import': (url) => `<style>@import url("${url}");</style>`,
  'CSS background': (url) => `<div style="background:url('${url}');width:10px;height:10px"></div>`,
  fetch: (url) =>
    `<script>fetch(${JSON.stringify(url)}).then((r) => r.text()).then((t) => document.body.append(t)).catch(() => {});</script>`,
  XHR: (url) =>
    `<script>try { const x = new XMLHttpRequest(); x.open('GET', ${JSON.stringify(url)}, false); x.send(); document.body.append(x.responseText); } catch {}</script>`,
  EventSource: (url) =>
    `<script>new EventSource(${JSON.stringify(url)}).onmessage = (e) => document.body.append(e.data);</script>`,
  Worker: (url) =>
    `<script>const w = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(`fetch(${JSON.stringify(url)}).then((r) => r.text()).then((t) => postMessage(t)).catch(() => {});`)}])));
     w.onmessage = (e) => document.body.append(e.data);</script>`,
};

// Let script-started requests go out, and their answers or refusals come back, before the page
// prints: a wait after load, with the page's script free to run meanwhile (not a loop burning a core).
const settle = { waitDelay: 300 };

describe('documents cannot reach loopback, whatever the encoding', () => {
  it.each(Object.keys(vectors))('%s', async (vector) => {
    const html = loopbackTargets()
      .map((url) => vectors[vector]!(url))
      .join('\n');
    const { body } = await renderOk(`<p>start</p>${html}`, settle);
    if (['iframe', 'img', 'CSS @import', 'CSS background'].includes(vector)) {
      // What the page itself loads is reported as blocked, with the policy's code (the detail is the operator's).
      const blocked = body.blocked.map((issue: { url: string }) => issue.url);
      expect(blocked.length).toBeGreaterThanOrEqual(8);
      expect(body.blocked.every((issue: { code: string }) => issue.code === 'NETWORK_POLICY')).toBe(true);
    }
  });

  it('WebSocket', async () => {
    const sockets = loopbackTargets()
      .map((url) => url.replace(/^https?/i, 'ws'))
      .map(
        (url) =>
          `<script>try { const s = new WebSocket(${JSON.stringify(url)}); s.onmessage = (e) => document.body.append(e.data); } catch {}</script>`,
      )
      .join('\n');
    await renderOk(`<p>ws</p>${sockets}`, settle);
  });

  it('WebRTC STUN and TURN (UDP and TCP, which no HTTP proxy sees)', async () => {
    const udp = createSocket('udp4');
    const packets: string[] = [];
    let flushed = false;
    udp.on('message', (message, from) =>
      message.toString() === 'flush' ? (flushed = true) : packets.push(`${from.address}:${from.port}`),
    );
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    try {
      const { port } = udp.address();
      await renderOk(
        `<p>rtc</p><script>
        const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${port}' }, { urls: 'turn:127.0.0.1:${canary.port}?transport=tcp', username: 'u', credential: 'p' }] });
        pc.createDataChannel('x');
        pc.createOffer().then((offer) => pc.setLocalDescription(offer));
      </script>`,
        settle,
      );
      // The document is gone with its render (the page is reset), so whatever it sent is in this
      // socket's queue by now: a datagram of ours sent now arrives after all of it, and once it has,
      // nothing else came (in place of a 700 ms wait).
      udp.send('flush', port, '127.0.0.1');
      await until(() => flushed, 'our own datagram');
      expect(packets).toEqual([]);
    } finally {
      udp.close();
    }
  });

  it('reports the blocked URLs in the sync response headers too', async () => {
    const { headers } = await renderOk(`<img src="http://127.0.0.1:${canary.port}/header-report">`);
    expect(headers.get('x-pdfrender-blocked-count')).toBe('1');
    expect(JSON.parse(headers.get('x-pdfrender-blocked')!)).toEqual([
      {
        url: `http://127.0.0.1:${canary.port}/header-report`,
        code: 'NETWORK_POLICY',
        reason: 'blocked by the network policy (public addresses only)',
      },
    ]);
  });

  it('reports the blocked URLs in the async job status', async () => {
    const hook = createServer((_req, res) => res.writeHead(200).end());
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    try {
      await server.deps.webhooks.add(`http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, Date.now());
      const queued = await fetch(`${server.url}/api/pdfs/render-async`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          htmlContent: `<img src="http://127.0.0.1:${canary.port}/async">`,
          identifier: 'hostile-async',
        }),
      });
      expect(queued.status).toBe(202);
      const { statusUrl } = await queued.json();
      const status = await until(async () => {
        const polled = await (await fetch(statusUrl)).json();
        return ['succeeded', 'failed'].includes(polled.status) && polled;
      }, 'the job to end');
      expect(status).toMatchObject({
        status: 'succeeded',
        blocked: [
          {
            url: `http://127.0.0.1:${canary.port}/async`,
            code: 'NETWORK_POLICY',
            reason: 'blocked by the network policy (public addresses only)',
          },
        ],
        failed: [],
      });
    } finally {
      hook.close();
    }
  });

  it('fails the render with --fail-on-blocked', async () => {
    const strict = await startServer({ failOnBlocked: true });
    try {
      const response = await fetch(`${strict.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: `<img src="http://127.0.0.1:${canary.port}/strict">` }),
      });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        outcome: 'RENDER_PDF_FAILED',
        message: expect.stringContaining('--fail-on-blocked'),
      });
    } finally {
      await strict.close();
    }
  });

  it('keeps header and footer images to the same policy', async () => {
    const response = await render('<p>body</p>', {
      headerHtmlContent: `<img src="http://127.0.0.1:${canary.port}/header-image">`,
      footerHtmlContent: `<img src="${secretUrl}">`,
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.blocked.map((issue: { url: string }) => issue.url).sort()).toEqual(
      [`http://127.0.0.1:${canary.port}/header-image`, secretUrl].sort(),
    );
  });
});

describe('documents cannot read files or browser pages', () => {
  const schemes = () => [
    secretUrl,
    secretUrl.replace(/^file:/, 'FILE:'),
    'file:///etc/passwd',
    'view-source:file:///etc/passwd',
    'chrome://version',
    'filesystem:http://example.invalid/temporary/x',
    'ftp://127.0.0.1/',
  ];
  // An image or a stylesheet would never print the file's text, so what was refused is asserted: each
  // file and browser URL is in the blocked report, with the reason.
  it.each(['img', 'CSS @import', 'XHR', 'EventSource'])('%s', async (vector) => {
    const html = schemes()
      .map((url) => vectors[vector]!(url))
      .join('\n');
    const { text, body } = await renderOk(`<p>files</p>${html}`, settle);
    expect(text).not.toMatch(/root:x:0:0/);
    const blocked = new Map<string, string>(
      body.blocked.map((issue: { url: string; reason: string }) => [issue.url, issue.reason]),
    );
    for (const url of [secretUrl, 'file:///etc/passwd'])
      expect(blocked.get(url)).toMatch(/^file: URLs are not allowed/);
    expect(blocked.get('chrome://version/')).toMatch(/^chrome: URLs are not allowed/);
    expect(blocked.get('view-source:file:///etc/passwd')).toMatch(/^view-source: URLs are not allowed/);
  });

  // Chromium refuses these before any request exists (nothing to report), so the document itself
  // says what it got: every attempt must end in an error, none in the file's contents.
  it.each(['iframe', 'fetch', 'Worker'])('%s', async (vector) => {
    const attempt: Record<string, (url: string, i: number) => string> = {
      iframe: (url, i) =>
        `<iframe id="f${i}" src="${url}"></iframe><script>addEventListener('load', () => { let t; try { t = document.getElementById('f${i}').contentDocument?.body?.innerText; } catch { t = null; } document.body.append(t ? ' READ:' + t : ' refused-${i}'); });</script>`,
      fetch: (url, i) =>
        `<script>fetch(${JSON.stringify(url)}).then((r) => r.text()).then((t) => document.body.append(' READ:' + t), () => document.body.append(' refused-${i}'));</script>`,
      Worker: () => '',
    };
    // One worker tries every URL and answers once, in an element the page prints only once it is
    // there (waitForSelector): a worker that never answers fails the render at its deadline.
    const inWorker = (urls: string[]) =>
      `<script>const w = new Worker(URL.createObjectURL(new Blob([${JSON.stringify(
        `Promise.all(${JSON.stringify(urls)}.map((url, i) => fetch(url).then((r) => r.text()).then((t) => ' READ:' + t, () => ' refused-' + i))).then((all) => postMessage(all.join('')));`,
      )}]))); w.onmessage = (e) => { const p = document.createElement('p'); p.id = 'worker-answer'; p.textContent = e.data; document.body.append(p); };</script>`;
    // In a worker only the file: URLs: a fetch of some browser schemes there never settles.
    const urls = vector === 'Worker' ? schemes().filter((url) => /^file:/i.test(url)) : schemes();
    const html = vector === 'Worker' ? inWorker(urls) : urls.map((url, i) => attempt[vector]!(url, i)).join('\n');
    const { text } = await renderOk(
      `<p>files</p>${html}`,
      vector === 'Worker' ? { waitForSelector: '#worker-answer' } : settle,
    );
    expect(text).not.toContain('READ:');
    for (let i = 0; i < urls.length; i += 1) expect(text).toContain(`refused-${i}`);
  });

  it('a popup to a file or to loopback', async () => {
    await renderOk(
      `<p>popups</p><script>window.open(${JSON.stringify(secretUrl)}); window.open('http://127.0.0.1:${canary.port}/popup');</script>`,
      settle,
    );
  });
});

describe('runaway documents', () => {
  it('while (true) {} fails at the deadline', async () => {
    // On a server of its own with a 1.5 s deadline: the loop burns a core until then, 4 s on the file's server.
    const quick = await startServer({ rateLimit: 100, timeout: '1500ms' });
    try {
      const response = await render('<script>while (true) {}</script>', {}, quick);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        outcome: 'RENDER_PDF_FAILED',
        message: expect.stringContaining('within the 1.5 s deadline'),
      });
      // That server goes on too (afterEach checks the file's own).
      const next = await render('<h1>After the loop</h1>', {}, quick);
      expect(next.status).toBe(200);
      expect((await readPdf(await pdfOf(next))).pages[0]!.text).toContain('After the loop');
    } finally {
      await quick.close();
    }
  });

  it('a 2 GB allocation held past the deadline fails that render alone', async () => {
    const gate = await startGate();
    try {
      // Held past the 4 s deadline (waitDelay), so the render fails every time, whether or not this
      // machine grants the 2 GB: at its deadline, or with its renderer out of memory.
      const big = render(
        '<p>big</p><script>const chunks = []; for (let i = 0; i < 16; i++) chunks.push(new Uint8Array(128 * 1024 * 1024).fill(1)); document.body.append(String(chunks.length));</script>',
        { waitDelay: 10_000 },
      );
      // The server's other page meanwhile: a document held there 2 s renders, then one held at a
      // gate (on the allowed host) until the allocation's render has failed and its page is gone,
      // so that it is in flight throughout, its own deadline (counted from 2 s later) still ahead.
      const beside = await render('<h1>Beside</h1>', { waitDelay: 2000 });
      expect(await okText(beside)).toContain('Beside');
      const browsers = [...browsersOf(process.pid).keys()];
      const held = render(`<img src="${gate.url.replace('127.0.0.1', 'redirector.test')}"><h1>Held</h1>`);
      await gate.reached(1);
      const response = await big;
      expect({ status: response.status, ...(await response.json()) }).toMatchObject({
        status: 400,
        outcome: 'RENDER_PDF_FAILED',
        message: expect.stringMatching(/within the 4 s deadline|renderer crashed/),
      });
      // The server's two places are the failed page's, until it is gone, and the held render's: the
      // next render starts only then.
      const next = await render('<h1>Next</h1>');
      expect(await okText(next)).toContain('Next');
      gate.open();
      expect(await okText(await held)).toContain('Held');
      // Still the same browser: only the allocation's own page was given up.
      expect([...browsersOf(process.pid).keys()], 'the browsers of this process').toEqual(browsers);
    } finally {
      gate.close();
    }
  });

  it('100 window.open calls', async () => {
    const { text } = await renderOk(
      '<p>opener</p><script>for (let i = 0; i < 100; i++) window.open("about:blank#" + i); document.body.append("done opening");</script>',
    );
    expect(text).toContain('done opening');
  });

  it('alert, confirm and prompt loops, beforeunload and print', async () => {
    const { text } = await renderOk(
      '<p>dialogs</p><script>for (let i = 0; i < 50; i++) { alert(i); confirm("sure?"); prompt("name?"); } window.print(); window.onbeforeunload = (e) => { e.preventDefault(); return "stay"; }; document.body.append("dialogs done");</script>',
    );
    expect(text).toContain('dialogs done');
  });

  it('a download neither holds up the render nor writes a file', async () => {
    const name = `pdfrender-hostile-${process.pid}.bin`;
    const { text } = await renderOk(
      `<p>download</p><a id="d" href="data:application/octet-stream;base64,AAAA" download="${name}">x</a><script>document.getElementById("d").click();</script>`,
    );
    expect(text).toContain('download');
    expect(existsSync(join(homedir(), 'Downloads', name))).toBe(false);
    expect(existsSync(join(process.cwd(), name))).toBe(false);
  });
});

describe('hostile bodies', () => {
  const post = (body: BodyInit, contentType: string, target = server) =>
    fetch(`${target.url}/api/pdfs/render-sync`, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  // Fields a request does not have are refused by default (issue 29 §3); a server that only warns of
  // them (--allow-unknown-fields) parses every part into the request, which is where a __proto__
  // field could pollute.
  let lenient: TestServer;
  beforeAll(async () => {
    lenient = await startServer({ rateLimit: 100_000, allowUnknownFields: true }, { engine: server.deps.engine });
  });
  afterAll(() => lenient?.close());

  it('a 20 MB body is refused with 413 before it is read whole', async () => {
    // node:http rather than fetch: the server answers and closes while the client is still sending,
    // which fetch reports as a reset instead of the answer.
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${server.url}/api/pdfs/render-sync`,
        { method: 'POST', headers: { 'Content-Type': 'application/json' } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      // Once the answer is in, the rest of the upload is refused (EPIPE, reset): expected.
      let answered = false;
      req.on('response', () => (answered = true));
      req.on('error', (error) => (answered ? undefined : reject(error)));
      req.on('socket', (socket) => socket.on('error', () => undefined));
      req.end(`{"htmlContent":"${'x'.repeat(20 * 1024 * 1024)}"}`);
    });
    expect(status).toBe(413);
    expect(JSON.parse(body).outcome).toBe('PAYLOAD_TOO_LARGE');
  });

  it('malformed JSON is refused with 422', async () => {
    const response = await post('{"htmlContent": "<p>', 'application/json');
    expect(response.status).toBe(422);
    expect((await response.json()).outcome).toBe('VALIDATION_FAILED');
  });

  it('invalid UTF-8 is refused with 422 naming the body', async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"htmlContent":"<p>bad '),
      Buffer.from([0xff, 0xfe, 0xc3, 0x28]),
      Buffer.from('</p>"}'),
    ]);
    const response = await post(bytes, 'application/json');
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      outcome: 'VALIDATION_FAILED',
      errors: { body: [expect.stringContaining('UTF-8')] },
    });
  });

  it('truncated multipart is refused with 422', async () => {
    const response = await post(
      '--xyz\r\nContent-Disposition: form-data; name="htmlContent"\r\n\r\n<p>cut',
      'multipart/form-data; boundary=xyz',
    );
    expect(response.status).toBe(422);
  });

  it('as many multipart parts as the field limit allows and a __proto__ field neither crash nor pollute', async () => {
    const form = new FormData();
    form.append('htmlContent', '<p>many parts</p>');
    // Sent twice, a __proto__ field would become a list that replaces a plain object's prototype.
    form.append('__proto__', '{"polluted":true}');
    form.append('__proto__', '{"polluted":true}');
    form.append('constructor', 'x');
    // Up to the limit (more is 413, see read-body.test.ts).
    for (let i = 0; i < maxFormFields - 4; i++) form.append(`field${i}`, 'v');
    const refused = await fetch(`${server.url}/api/pdfs/render-sync`, { method: 'POST', body: form });
    expect(refused.status).toBe(422);
    // The parts named as no request field are (the form reader drops a __proto__ part before that).
    expect((await refused.json()) as unknown).toMatchObject({
      outcome: 'VALIDATION_FAILED',
      errors: { constructor: ['is not a request field'], field0: ['is not a request field'] },
    });
    const response = await fetch(`${lenient.url}/api/pdfs/render-sync`, { method: 'POST', body: form });
    expect(response.status).toBe(200);
    expect((await readPdf(await pdfOf(response))).pages[0]!.text).toContain('many parts');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('a JSON __proto__ field does not pollute', async () => {
    const body =
      '{"htmlContent":"<p>proto</p>","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}';
    const refused = await post(body, 'application/json');
    expect(refused.status).toBe(422);
    const response = await post(body, 'application/json', lenient);
    expect(response.status).toBe(200);
    expect((await readPdf(await pdfOf(response))).pages[0]!.text).toContain('proto');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
