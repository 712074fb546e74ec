/**
 * The server's edge against a hostile client or web page (issue 9, items 5, 6, 11, 12): URLs never
 * from the Host header, DNS rebinding, cross-site form posts and CORS, X-Forwarded-For spoofing,
 * slow clients and the connection cap. A real server on an ephemeral port and real Chromium; raw
 * sockets and node:http where fetch would not send what an attacker sends (Host, a trickle).
 */
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { normalizeAddress } from '../src/network/address-spelling.js';
import { clientAddress } from '../src/server/edge/client-address.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { readPdf } from './support/pdf.js';
import { receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

let engine: Engine;

beforeAll(() => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 10_000 });
});

afterAll(async () => {
  await engine.close();
  await removeTempDirs();
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  json(): Record<string, unknown>;
}

/** A request through node:http, which sends the Host (and any other header) it is given. */
function send(
  server: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<RawResponse> {
  const { hostname, port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, method, path, headers, setHost: !('Host' in headers) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const data = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body: data, json: () => JSON.parse(data.toString()) });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const jsonHeaders = (headers: Record<string, string> = {}) => ({ 'Content-Type': 'application/json', ...headers });
const doc = (text: string) => JSON.stringify({ htmlContent: `<p>${text}</p>` });

describe('absolute URLs never come from the Host header (item 5)', () => {
  it('a wildcard listener names the address the connection arrived on in fileUrl, statusUrl, the job status and the webhook', async () => {
    const hook = await receiver();
    const server = await startServer({ host: '0.0.0.0' }, { engine }, { realClock: true });
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const base = server.url; // http://127.0.0.1:<port>, the address the test connects to
      const hostile = { Host: 'attacker.example' };

      const syncAnswer = await send(server, 'POST', '/api/pdfs/render-sync', jsonHeaders(hostile), doc('sync'));
      expect(syncAnswer.status).toBe(200);
      expect(syncAnswer.json().fileUrl).toMatch(new RegExp(`^${base}/api/pdfs/files/`));
      const pdfAnswer = await send(
        server,
        'POST',
        '/api/pdfs/render-sync',
        jsonHeaders({ ...hostile, Accept: 'application/pdf' }),
        doc('as pdf'),
      );
      expect(pdfAnswer.headers['content-location']).toMatch(new RegExp(`^${base}/api/pdfs/files/`));
      expect((await readPdf(new Uint8Array(pdfAnswer.body))).pages[0]!.text).toBe('as pdf');

      const queued = await send(
        server,
        'POST',
        '/api/pdfs/render-async',
        jsonHeaders(hostile),
        JSON.stringify({ htmlContent: '<p>async</p>', identifier: 'host-1' }),
      );
      expect(queued.status).toBe(202);
      const statusUrl = queued.json().statusUrl as string;
      expect(statusUrl).toBe(`${base}/api/pdfs/jobs/${queued.json().jobId}`);

      const event = JSON.parse((await until(() => hook.received[0], 'the webhook')).body);
      expect(event.type).toBe('PDF_RENDERED');
      expect(event.payload.url).toMatch(new RegExp(`^${base}/api/pdfs/files/`));
      const status = await send(server, 'GET', new URL(statusUrl).pathname, hostile);
      expect(status.json().fileUrl).toBe(event.payload.url);
      // The URL the receiver got is this server's, and serves the job's PDF.
      const pdf = await fetch(event.payload.url);
      expect((await readPdf(new Uint8Array(await pdf.arrayBuffer()))).pages[0]!.text).toBe('async');
    } finally {
      await server.close();
      hook.close();
    }
  });

  it("on loopback, answers only to this machine's names on its port (DNS rebinding), and names the listening address whatever Host said", async () => {
    const hook = await receiver();
    const server = await startServer({}, { engine }, { realClock: true });
    try {
      await server.deps.webhooks.add(hook.url, Date.now());
      const { port } = new URL(server.url);
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
        const answer = await send(server, 'POST', '/api/pdfs/render-sync', jsonHeaders({ Host: host }), doc(host));
        expect(answer.status, host).toBe(200);
        expect(answer.json().fileUrl, host).toMatch(new RegExp(`^${server.url}/api/pdfs/files/`));
      }
      for (const host of [
        'attacker.example',
        `attacker.example:${port}`,
        `localhost:${Number(port) + 1}`,
        'localhost',
        `127.0.0.1.nip.io:${port}`,
        `sub.localhost:${port}`,
      ]) {
        const refused = await send(
          server,
          'POST',
          '/api/pdfs/render-async',
          jsonHeaders({ Host: host }),
          JSON.stringify({ htmlContent: '<p>x</p>', identifier: host }),
        );
        expect(refused.status, `${host}: ${refused.body}`).toBe(421);
        expect(refused.json().outcome).toBe('HOST_NOT_ALLOWED');
        // Reading is refused too: a rebound page learns nothing.
        expect((await send(server, 'GET', '/healthz', { Host: host })).status, host).toBe(421);
      }
      // Nothing was queued by the refused requests.
      expect(server.db.prepare('SELECT count(*) AS n FROM jobs').get()).toEqual({ n: 0 });
    } finally {
      await server.close();
      hook.close();
    }
  });

  it('with --public-url, the Host is not checked and every URL is the public one', async () => {
    const server = await startServer({ publicUrl: 'https://pdf.example.com/base/' }, { engine });
    try {
      const answer = await send(
        server,
        'POST',
        '/api/pdfs/render-sync',
        jsonHeaders({ Host: 'attacker.example' }),
        doc('public'),
      );
      expect(answer.status).toBe(200);
      expect(answer.json().fileUrl).toMatch(/^https:\/\/pdf\.example\.com\/base\/api\/pdfs\/files\//);
    } finally {
      await server.close();
    }
  });
});

describe('cross-site browser requests (item 6)', () => {
  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const formHeaders = (extra: Record<string, string>) => ({
    'Content-Type': 'application/x-www-form-urlencoded',
    ...extra,
  });
  const crossSite = { Origin: 'http://evil.example', 'Sec-Fetch-Site': 'cross-site' };

  it("refuses a form posted by another site's page to every state-changing route, and registers nothing", async () => {
    const server = await startServer({}, { engine });
    try {
      const kept = await server.deps.webhooks.add('http://127.0.0.1:9/kept', Date.now());
      const attempts: Array<[string, string, Record<string, string>, string?]> = [
        ['POST', '/api/webhooks', formHeaders(crossSite), form({ url: 'http://127.0.0.1:9/evil' })],
        [
          'POST',
          '/api/webhooks',
          formHeaders({ Origin: 'http://evil.example' }),
          form({ url: 'http://127.0.0.1:9/evil' }),
        ],
        [
          'POST',
          '/api/webhooks',
          formHeaders({ 'Sec-Fetch-Site': 'same-site' }),
          form({ url: 'http://127.0.0.1:9/evil' }),
        ],
        [
          'POST',
          '/api/webhooks',
          formHeaders({ Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }),
          form({ url: 'http://127.0.0.1:9/evil' }),
        ],
        ['POST', '/api/pdfs/render-sync', formHeaders(crossSite), form({ htmlContent: '<p>x</p>' })],
        [
          'POST',
          '/api/pdfs/render-async',
          formHeaders(crossSite),
          form({ htmlContent: '<p>x</p>', identifier: 'evil' }),
        ],
        ['DELETE', `/api/webhooks/${kept.id}`, crossSite],
      ];
      for (const [method, path, headers, body] of attempts) {
        const answer = await send(server, method, path, headers, body);
        expect(answer.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(answer.json().outcome).toBe('CROSS_SITE_REQUEST');
        expect(answer.headers['access-control-allow-origin']).toBeUndefined();
      }
      expect((await server.deps.webhooks.list()).map((endpoint) => endpoint.url)).toEqual(['http://127.0.0.1:9/kept']);

      // A client that is not a browser sends neither header, and a browser's own same-origin request is its own.
      expect(
        (await send(server, 'POST', '/api/webhooks', formHeaders({}), form({ url: 'http://127.0.0.1:9/cli' }))).status,
      ).toBe(201);
      expect(
        (
          await send(
            server,
            'POST',
            '/api/pdfs/render-sync',
            formHeaders({ 'Sec-Fetch-Site': 'same-origin', Origin: server.url }),
            form({ htmlContent: '<p>x</p>' }),
          )
        ).status,
      ).toBe(200);
      // Reading stays open to anyone (the browser keeps the answer from the page without CORS).
      expect((await send(server, 'GET', '/api/webhooks', crossSite)).status).toBe(200);
      // The OpenAPI document names both edge refusals.
      const { paths } = await (await fetch(`${server.url}/openapi.json`)).json();
      expect(
        paths['/api/webhooks'].post.responses['403'].content['application/json'].schema.properties.outcome.enum,
      ).toEqual(['CROSS_SITE_REQUEST']);
      expect(paths['/api/webhooks'].get.responses['403']).toBeUndefined();
      expect(
        paths['/api/pdfs/jobs/{jobId}'].get.responses['421'].content['application/json'].schema.properties.outcome.enum,
      ).toEqual(['HOST_NOT_ALLOWED']);
    } finally {
      await server.close();
    }
  });

  it('--cors-origin lets those origins call from a browser, with preflight and CORS headers, and only those', async () => {
    const server = await startServer({ corsOrigins: ['https://app.example'], apiKeys: ['k'] }, { engine });
    try {
      const preflight = await send(server, 'OPTIONS', '/api/pdfs/render-sync', {
        Origin: 'https://app.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization, content-type',
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(String(preflight.headers['access-control-allow-methods']).split(',')).toEqual(
        expect.arrayContaining(['POST', 'DELETE']),
      );
      expect(String(preflight.headers['access-control-allow-headers']).split(',')).toEqual(
        expect.arrayContaining(['Authorization', 'Content-Type']),
      );
      expect(String(preflight.headers.vary)).toMatch(/Origin/);

      const allowed = { Origin: 'https://app.example', 'Sec-Fetch-Site': 'cross-site' };
      const answer = await send(
        server,
        'POST',
        '/api/pdfs/render-sync',
        jsonHeaders({ ...allowed, Authorization: 'Bearer k' }),
        doc('from the app'),
      );
      expect(answer.status).toBe(200);
      expect(answer.headers['access-control-allow-origin']).toBe('https://app.example');
      expect(String(answer.headers.vary)).toMatch(/Origin/);
      expect(String(answer.headers['access-control-expose-headers']).split(',')).toEqual(
        expect.arrayContaining([
          'Retry-After',
          'RateLimit',
          'RateLimit-Policy',
          'Content-Location',
          'X-Pdfrender-Blocked',
          'X-Pdfrender-Report',
        ]),
      );
      const file = await fetch(answer.json().fileUrl as string, { headers: { Authorization: 'Bearer k' } });
      expect((await readPdf(new Uint8Array(await file.arrayBuffer()))).pages[0]!.text).toBe('from the app');
      // The allowed page can read a refusal too.
      const unauthorised = await send(server, 'POST', '/api/pdfs/render-sync', jsonHeaders(allowed), doc('x'));
      expect(unauthorised.status).toBe(401);
      expect(unauthorised.headers['access-control-allow-origin']).toBe('https://app.example');

      const evilPreflight = await send(server, 'OPTIONS', '/api/pdfs/render-sync', {
        Origin: 'http://evil.example',
        'Access-Control-Request-Method': 'POST',
      });
      expect(evilPreflight.headers['access-control-allow-origin']).toBeUndefined();
      const evil = await send(
        server,
        'POST',
        '/api/pdfs/render-sync',
        jsonHeaders({ ...crossSite, Authorization: 'Bearer k' }),
        doc('x'),
      );
      expect(evil.status).toBe(403);
      expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('--cors-origin takes web origins only', () => {
    expect(
      loadServeConfig({ corsOrigins: ['https://App.example:443', 'http://localhost:5173'] }, {}, '/srv').corsOrigins,
    ).toEqual(['https://app.example', 'http://localhost:5173']);
    expect(
      loadServeConfig({}, { PDFRENDER_CORS_ORIGINS: 'https://a.example, https://b.example' }, '/srv').corsOrigins,
    ).toEqual(['https://a.example', 'https://b.example']);
    expect(() => loadServeConfig({ corsOrigins: ['https://app.example/path'] }, {}, '/srv')).toThrow(
      /--cors-origin \(PDFRENDER_CORS_ORIGINS\): "https:\/\/app.example\/path" is not a web origin/,
    );
    expect(() => loadServeConfig({ corsOrigins: ['*'] }, {}, '/srv')).toThrow(/is not a web origin/);
  });
});

describe('the client address behind a proxy (item 11)', () => {
  it('takes the address the trusted proxy appended, so a client cannot dodge the rate limit with its own X-Forwarded-For', async () => {
    const hop = await startServer({ rateLimit: 1, trustProxy: true }, { engine });
    // The proxy at 10.0.0.5 is trusted by address, as is this machine (the test connects from loopback).
    const listed = await startServer({ rateLimit: 1, trustProxy: 'loopback,10.0.0.0/8' }, { engine });
    try {
      const from = (s: TestServer, forwarded: string) =>
        send(s, 'POST', '/api/pdfs/render-sync', jsonHeaders({ 'X-Forwarded-For': forwarded }), doc('x'));
      // One hop: the proxy appended 198.51.100.7; whatever the client wrote before it changes nothing.
      expect((await from(hop, '198.51.100.7')).status).toBe(200);
      expect((await from(hop, '203.0.113.1, 198.51.100.7')).status).toBe(429);
      expect((await from(hop, '203.0.113.2,198.51.100.7')).status).toBe(429);
      expect((await from(hop, '[::ffff:198.51.100.7]:4711')).status).toBe(429);
      expect((await from(hop, '198.51.100.8')).status).toBe(200);

      expect((await from(listed, '203.0.113.1, 198.51.100.7, 10.0.0.5')).status).toBe(200);
      expect((await from(listed, '203.0.113.9, 198.51.100.7, 10.0.0.5')).status).toBe(429);
      expect((await from(listed, '198.51.100.7')).status).toBe(429);
    } finally {
      await hop.close();
      await listed.close();
    }
  });

  it('walks the chain from the right through trusted hops only, with addresses in one spelling', () => {
    const trust = (value: unknown) => loadServeConfig({ trustProxy: value }, {}, '/srv').trustProxy;
    expect(clientAddress('::ffff:127.0.0.1', '1.1.1.1, 2.2.2.2', trust(false))).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '1.1.1.1, 2.2.2.2', trust(true))).toBe('2.2.2.2');
    expect(clientAddress('127.0.0.1', '1.1.1.1, 2.2.2.2', trust('2'))).toBe('1.1.1.1');
    expect(clientAddress('127.0.0.1', '1.1.1.1, 2.2.2.2', trust('5'))).toBe('1.1.1.1');
    // Garbage where an address should be stops the walk at the last good one.
    expect(clientAddress('127.0.0.1', '1.1.1.1, not-an-ip', trust('2'))).toBe('127.0.0.1');
    expect(clientAddress('127.0.0.1', '1.1.1.1, 10.1.2.3', trust('10.0.0.0/8'))).toBe('127.0.0.1');
    expect(clientAddress('10.9.9.9', '1.1.1.1, 10.1.2.3', trust('10.0.0.0/8'))).toBe('1.1.1.1');
    expect(clientAddress('::ffff:10.9.9.9', '1.1.1.1, ::FFFF:10.1.2.3', trust('::ffff:10.0.0.0/104'))).toBe('1.1.1.1');
    expect(clientAddress('::1', '2001:DB8:0:0::1', trust('loopback'))).toBe('2001:db8::1');
    expect(loadServeConfig({}, { PDFRENDER_TRUST_PROXY: '2' }, '/srv').trustProxy).toBe(2);
    expect(() => trust('proxy.example')).toThrow(
      /--trust-proxy \(PDFRENDER_TRUST_PROXY\): "proxy.example" is not a number of hops/,
    );
    expect(normalizeAddress('[::ffff:1.2.3.4]:80')).toBe('1.2.3.4');
    expect(normalizeAddress('1.2.3.4:8080')).toBe('1.2.3.4');
    expect(normalizeAddress('0x7f.1')).toBeNull();
  });
});

/** A raw connection that sends `head` and then one byte of `trickle` every 200 ms, until the server closes it. */
function trickle(server: TestServer, head: string, trickleText: string): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    let sent = 0;
    socket.write(head);
    const timer = setInterval(() => {
      // 150 bytes at 200 ms is 30 s: Node's own defaults would still be waiting by then.
      if (sent >= trickleText.length) {
        clearInterval(timer);
        socket.destroy();
        reject(new Error(`the server was still reading after ${sent} trickled bytes`));
      } else if (!socket.destroyed) socket.write(trickleText[sent++]!);
    }, 200);
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve(answer);
    });
  });
}

describe('slow clients and the connection cap (item 12)', () => {
  it('cuts slow headers and slow bodies with 408, but not a render that takes longer than the request timeout to answer', async () => {
    const server = await startServer({ headersTimeout: '1s', requestTimeout: '1s' }, { engine });
    try {
      const { host } = new URL(server.url);
      // The body arrives at once; the document waits 2.5 s before printing, past the 1 s request
      // timeout, while two other connections trickle (headers, then a body) until they are cut.
      const answering = fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: jsonHeaders({ Accept: 'application/pdf' }),
        body: JSON.stringify({ htmlContent: '<p>slow but whole</p>', waitDelay: 2500 }),
      });
      const [headers, body] = await Promise.all([
        trickle(server, `POST /api/pdfs/render-sync HTTP/1.1\r\nHost: ${host}\r\n`, `X-Slow: ${'a'.repeat(150)}`),
        trickle(
          server,
          `POST /api/pdfs/render-sync HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`,
          ' '.repeat(150),
        ),
      ]);
      expect(headers).toMatch(/^HTTP\/1\.1 408 /);
      expect(body).toMatch(/^HTTP\/1\.1 408 /);

      const answer = await answering;
      expect(answer.status).toBe(200);
      expect((await readPdf(new Uint8Array(await answer.arrayBuffer()))).pages[0]!.text).toBe('slow but whole');
    } finally {
      await server.close();
    }
  });

  it('closes connections beyond --max-connections at once, and takes new ones when a slot frees', async () => {
    const server = await startServer({ maxConnections: 2 }, { engine });
    const { port, host } = new URL(server.url);
    const open = (): Promise<Socket> =>
      new Promise((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
        socket.on('error', () => undefined);
      });
    /** Send a whole request on a fresh connection; the status line, or '' when the server closed it unanswered. */
    const ask = async () => {
      const socket = await open();
      return new Promise<string>((resolve) => {
        let answer = '';
        socket.on('data', (chunk: Buffer) => {
          answer += chunk.toString();
          if (answer.includes('\r\n')) socket.destroy();
        });
        socket.on('close', () => resolve(answer.split('\r\n')[0]!));
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      });
    };
    try {
      // Two connections that never finish their request hold both slots.
      const held = [await open(), await open()];
      for (const socket of held) socket.write('GET /healthz HTTP/1.1\r\n');
      expect(await ask()).toBe('');
      held[0]!.destroy();
      // The server hears of the close a moment later.
      expect(await until(async () => (await ask()) || undefined, 'a free slot', 5_000)).toBe('HTTP/1.1 200 OK');
      held[1]!.destroy();
    } finally {
      await server.close();
    }
  });

  it('bounds the connection settings and keeps headers within the request timeout', () => {
    const config = loadServeConfig(
      {},
      { PDFRENDER_HEADERS_TIMEOUT: '5s', PDFRENDER_REQUEST_TIMEOUT: '2m', PDFRENDER_MAX_CONNECTIONS: '50' },
      '/srv',
    );
    expect(config).toMatchObject({ headersTimeout: 5000, requestTimeout: 120_000, maxConnections: 50 });
    expect(loadServeConfig({}, {}, '/srv')).toMatchObject({
      headersTimeout: 20_000,
      requestTimeout: 60_000,
      maxConnections: 1000,
    });
    expect(() => loadServeConfig({ headersTimeout: '2m' }, {}, '/srv')).toThrow(
      '--headers-timeout (PDFRENDER_HEADERS_TIMEOUT): must not be longer than --request-timeout',
    );
    expect(() => loadServeConfig({ maxConnections: '0' }, {}, '/srv')).toThrow(
      /--max-connections \(PDFRENDER_MAX_CONNECTIONS\): must be at least 1/,
    );
  });

  it('keeps --dedupe-window long enough, with --database, for a request answered 504 OUTCOME_UNKNOWN to be sent again safely', () => {
    const database = 'postgres://pdfrender@db:5432/pdfrender';
    expect(loadServeConfig({ database }, {}, '/srv')).toMatchObject({ databaseTimeout: 30_000, dedupeWindow: 60_000 });
    expect(() => loadServeConfig({ database, databaseTimeout: '45s' }, {}, '/srv')).toThrow(
      '--dedupe-window (PDFRENDER_DEDUPE_WINDOW): must be at least --database-timeout + 20s with --database, so that a request answered 504 OUTCOME_UNKNOWN can still be sent again safely',
    );
    expect(loadServeConfig({ database, databaseTimeout: '45s', dedupeWindow: '65s' }, {}, '/srv')).toMatchObject({
      dedupeWindow: 65_000,
    });
    // SQLite never answers 504: any window.
    expect(loadServeConfig({ dedupeWindow: '10s' }, {}, '/srv')).toMatchObject({ dedupeWindow: 10_000 });
  });

  it('refuses an absurd paper size with 422 naming the field', async () => {
    const server = await startServer({}, { engine });
    try {
      for (const [field, value] of [
        ['paperWidth', 1e26],
        ['paperHeight', '201in'],
      ] as const) {
        const answer = await send(
          server,
          'POST',
          '/api/pdfs/render-sync',
          jsonHeaders(),
          JSON.stringify({ htmlContent: '<p>x</p>', [field]: value }),
        );
        expect(answer.status).toBe(422);
        expect(answer.json().outcome).toBe('VALIDATION_FAILED');
        expect(Object.keys(answer.json().errors as object)).toEqual([field]);
      }
    } finally {
      await server.close();
    }
  });
});
