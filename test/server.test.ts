/**
 * The HTTP API over a real socket: real Chromium, real SQLite, a clock the tests move for the
 * rate-limit windows and file retention. Every assertion reads a status, a body or the PDF.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { accessLogWriter } from '../src/server/edge/access-log.js';
import { createApp } from '../src/server/app.js';
import { maxFormFields } from '../src/server/routes/body-shape.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs } from './support/files.js';
import { pt, readPdf } from './support/pdf.js';
import { startServer, type TestServer } from './support/server.js';

let engine: Engine;
let server: TestServer;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 1500 });
  server = await startServer({ rateLimit: 1000 }, { engine });
});

afterAll(async () => {
  await server.close();
  await engine.close();
  await removeTempDirs();
});

const sync = (s: TestServer, init: RequestInit) => fetch(`${s.url}/api/pdfs/render-sync`, { method: 'POST', ...init });
const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('render-sync', () => {
  it('renders JSON and answers with a fileUrl that downloads the same PDF', async () => {
    const response = await sync(
      server,
      json({ htmlContent: '<h1>Hello API</h1>', paperWidth: '210mm', paperHeight: '297mm' }),
    );
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ outcome: 'SUCCESS', pages: 1 });
    expect(body.fileUrl).toMatch(new RegExp(`^${server.url}/api/pdfs/files/[A-Za-z0-9_-]{22}$`));
    const download = await fetch(body.fileUrl);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    const pdf = new Uint8Array(await download.arrayBuffer());
    expect(pdf.byteLength).toBe(body.bytes);
    const read = await readPdf(pdf);
    expect(read.pages[0]!.text).toBe('Hello API');
    expect(read.pages[0]!.width).toBeCloseTo(210 * pt.mm, -1);
  });

  it('returns the PDF itself when Accept prefers application/pdf', async () => {
    const response = await sync(
      server,
      json({ htmlContent: '<p>Direct bytes</p>', landscape: true }, { Accept: 'application/pdf' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toMatch(/^inline; filename="[\w-]+\.pdf"$/);
    const read = await readPdf(new Uint8Array(await response.arrayBuffer()));
    expect(read.pages[0]).toMatchObject({ width: 792, height: 612, text: 'Direct bytes' });
    // The same file stays downloadable at Content-Location.
    const again = await fetch(response.headers.get('content-location')!);
    expect((await readPdf(new Uint8Array(await again.arrayBuffer()))).pages[0]!.text).toBe('Direct bytes');
  });

  it('takes multipart/form-data with string fields and uploaded HTML files', async () => {
    const form = new FormData();
    form.append('htmlContent', new Blob(['<p>Uploaded body</p>'], { type: 'text/html' }), 'page.html');
    form.append(
      'footerHtmlContent',
      new Blob(['<span>Uploaded footer <span class="pageNumber"></span></span>'], { type: 'text/html' }),
      'footer.html',
    );
    form.append('landscape', 'true');
    form.append('marginBottom', '1in');
    form.append('scale', '0.5');
    const response = await sync(server, { body: form, headers: { Accept: 'application/pdf' } });
    expect(response.status).toBe(200);
    const read = await readPdf(new Uint8Array(await response.arrayBuffer()));
    expect(read.pages[0]!.width).toBe(792);
    expect(read.pages[0]!.text).toContain('Uploaded body');
    expect(read.pages[0]!.text).toContain('Uploaded footer 1');
  });

  it('takes application/x-www-form-urlencoded', async () => {
    const body = new URLSearchParams({ htmlContent: '<p>Form encoded</p>', paperWidth: '4in', paperHeight: '6in' });
    const response = await sync(server, { body, headers: { Accept: 'application/pdf' } });
    expect(response.status).toBe(200);
    const read = await readPdf(new Uint8Array(await response.arrayBuffer()));
    expect(read.pages[0]).toMatchObject({ width: 288, height: 432, text: 'Form encoded' });
  });

  it('reports header images it could not fetch in X-Pdfrender-Warnings, and still renders', async () => {
    const response = await sync(
      server,
      json({ htmlContent: '<p>body</p>', headerHtmlContent: '<img src="logo-ü.png"> Header', marginTop: '1in' }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('x-pdfrender-warnings')).toBe(
      'header image logo-?.png was left out: relative URL with no base to resolve it against',
    );
  });

  it('answers 422 naming every bad field', async () => {
    const response = await sync(server, json({ scale: 'abc', paperWidth: '12 furlongs', landscape: 'maybe' }));
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.outcome).toBe('VALIDATION_FAILED');
    expect(body.errors).toEqual({
      htmlContent: ['is required (or give url instead)'],
      scale: ['must be a number (got "abc")'],
      paperWidth: [expect.stringContaining('unknown unit "furlongs"')],
      landscape: ['must be true or false (or 1/0, on/off, yes/no); got "maybe"'],
    });
  });

  it('answers 422 for malformed JSON and for a field of the wrong type', async () => {
    const malformed = await sync(server, { headers: { 'Content-Type': 'application/json' }, body: '{"htmlContent": ' });
    expect(malformed.status).toBe(422);
    expect((await malformed.json()).errors.body[0]).toMatch(/^is not valid JSON/);
    const wrongType = await sync(server, json({ htmlContent: ['a'], scale: 5 }));
    expect(wrongType.status).toBe(422);
    expect((await wrongType.json()).errors).toEqual({
      htmlContent: ['must be a string of HTML'],
      scale: ['must be between 0.1 and 2 (got 5)'],
    });
  });

  it('answers 422 naming the body, not 500, for multipart or JSON it cannot decode, and takes as many parts as the field limit allows, a __proto__ field among them', async () => {
    const noBoundary = await sync(server, {
      headers: { 'Content-Type': 'multipart/form-data' },
      body: 'htmlContent=<p>x</p>',
    });
    expect(noBoundary.status).toBe(422);
    expect((await noBoundary.json()).errors.body[0]).toMatch(/^is not valid multipart\/form-data/);
    const notUtf8 = await sync(server, {
      headers: { 'Content-Type': 'application/json' },
      body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]),
    });
    expect(notUtf8.status).toBe(422);
    expect((await notUtf8.json()).errors).toEqual({ body: ['is not valid UTF-8: send the body encoded as UTF-8'] });
    const badEscape = await sync(server, {
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'htmlContent=<p>100%</p>',
    });
    expect(badEscape.status).toBe(422);
    expect((await badEscape.json()).errors.body[0]).toMatch(/--data-urlencode/);

    const form = new FormData();
    // Up to the limit with the three below (more is 413, see read-body.test.ts).
    for (let i = 0; i < maxFormFields - 3; i += 1) form.append(`f${i}`, 'v');
    form.append('__proto__', 'one');
    form.append('__proto__', 'two');
    form.append('htmlContent', '<p>Ten thousand parts</p>');
    // Every part decoded: the unknown ones are refused by name, the first 20 of them, the rest counted.
    const many = await sync(server, { body: form, headers: { Accept: 'application/pdf' } });
    expect(many.status).toBe(422);
    const { errors } = (await many.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors)).toHaveLength(21);
    expect(errors.f0).toEqual(['is not a request field']);
    expect(errors.request).toEqual([`has ${maxFormFields - 3 - 20} more fields that are not request fields`]);
  });

  it('answers 400 RENDER_PDF_FAILED when the document cannot be rendered', async () => {
    const response = await sync(server, json({ htmlContent: '<script>while (true) {}</script>' }));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      outcome: 'RENDER_PDF_FAILED',
      message: 'the document did not finish rendering within the 1.5 s deadline',
    });
  });

  it('answers 415 for other content types and 413 for bodies over the limit, with or without Content-Length', async () => {
    const small = await startServer({ maxBody: '1kb' }, { engine });
    try {
      const text = await sync(small, { headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
      expect(text.status).toBe(415);
      expect((await text.json()).outcome).toBe('UNSUPPORTED_MEDIA_TYPE');
      const big = JSON.stringify({ htmlContent: 'x'.repeat(4000) });
      const withLength = await sync(small, { headers: { 'Content-Type': 'application/json' }, body: big });
      expect(withLength.status).toBe(413);
      expect((await withLength.json()).outcome).toBe('PAYLOAD_TOO_LARGE');
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 8; i += 1) controller.enqueue(new TextEncoder().encode('x'.repeat(512)));
          controller.close();
        },
      });
      const chunked = await sync(small, {
        headers: { 'Content-Type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status).toBe(413);
      // Without a socket (app.request()) a body carries neither Content-Length nor Transfer-Encoding.
      const bare = await createApp(small.deps, '0.0.0-test').request('/api/pdfs/render-sync', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: big,
      });
      expect(bare.status).toBe(413);
    } finally {
      await small.close();
    }
  });
});

describe('rate limiting', () => {
  it('allows N requests per 1-minute window, then 429 with Retry-After until the next window', async () => {
    const limited = await startServer({ rateLimit: 2 }, { engine });
    try {
      limited.clock.time = Date.UTC(2026, 10, 22, 12, 0, 40); // 20 s before the window ends
      const body = json({ htmlContent: '<p>x</p>' });
      const first = await sync(limited, body);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toBe('"sync";q=2;w=60');
      expect(first.headers.get('ratelimit')).toBe('"sync";r=1;t=20');
      expect((await sync(limited, body)).headers.get('ratelimit')).toBe('"sync";r=0;t=20');
      const third = await sync(limited, body);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toBe('20');
      expect(third.headers.get('ratelimit-policy')).toBe('"sync";q=2;w=60');
      expect(third.headers.get('ratelimit')).toBe('"sync";r=0;t=20');
      expect(await third.json()).toMatchObject({ outcome: 'RATE_LIMITED', retryAfter: 20 });
      // Invalid requests count too: the limit is on requests, not on PDFs.
      expect((await sync(limited, json({}))).status).toBe(429);

      limited.clock.time = Date.UTC(2026, 10, 22, 12, 1, 0, 1); // the next window
      const next = await sync(limited, body);
      expect(next.status).toBe(200);
      expect(next.headers.get('ratelimit')).toBe('"sync";r=1;t=60');
      // Only render-sync counts.
      expect((await fetch(`${limited.url}/healthz`)).headers.get('ratelimit')).toBeNull();
    } finally {
      await limited.close();
    }
  });

  it('puts RateLimit-Policy and RateLimit on refusals before the route (401, 413, 503) without counting them', async () => {
    const guarded = await startServer({ rateLimit: 1, apiKeys: ['key-one'], maxBody: '1kb' }, { engine });
    try {
      const auth = { Authorization: 'Bearer key-one' };
      const refusals = [
        await sync(guarded, json({ htmlContent: '<p>x</p>' })),
        await sync(guarded, json({ htmlContent: '<p>x</p>' }, { Authorization: 'Bearer wrong' })),
        await sync(guarded, json({ htmlContent: 'x'.repeat(4000) }, auth)),
      ];
      guarded.deps.lifecycle.draining = true;
      refusals.push(await sync(guarded, json({ htmlContent: '<p>x</p>' }, auth)));
      guarded.deps.lifecycle.draining = false;
      expect(refusals.map((r) => r.status)).toEqual([401, 401, 413, 503]);
      for (const refusal of refusals) {
        expect(refusal.headers.get('ratelimit-policy')).toBe('"sync";q=1;w=60');
        // Not counted: the window as it stands, its one request still there.
        expect(refusal.headers.get('ratelimit')).toBe('"sync";r=1;t=60');
      }
      // None of them used the one request of this window.
      const counted = await sync(guarded, json({ htmlContent: '<p>x</p>' }, auth));
      expect(counted.status).toBe(200);
      expect(counted.headers.get('ratelimit')).toBe('"sync";r=0;t=60');
      expect(counted.headers.get('ratelimit-policy')).toBe('"sync";q=1;w=60');
      // A refusal after it reads the used-up window of the same key.
      const tooLarge = await sync(guarded, json({ htmlContent: 'x'.repeat(4000) }, auth));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.headers.get('ratelimit')).toBe('"sync";r=0;t=60');
      // Other routes carry no rate-limit headers.
      expect(
        (await fetch(`${guarded.url}/api/webhooks`, { headers: auth })).headers.get('ratelimit-policy'),
      ).toBeNull();
    } finally {
      await guarded.close();
    }
  });

  it('counts per API key when auth is on', async () => {
    const keyed = await startServer({ rateLimit: 1, apiKeys: ['key-one', 'key-two'] }, { engine });
    try {
      const as = (key: string) => sync(keyed, json({ htmlContent: '<p>x</p>' }, { Authorization: `Bearer ${key}` }));
      expect((await as('key-one')).status).toBe(200);
      expect((await as('key-one')).status).toBe(429);
      expect((await as('key-two')).status).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});

describe('callers', () => {
  it('counts by client address, trusting X-Forwarded-For only with --trust-proxy', async () => {
    // As the proxy writes it for a client that sent none: the address it saw (spoofing: test/server-edge.test.ts).
    const forwardedAs = (s: TestServer, ip: string) =>
      sync(s, json({ htmlContent: '<p>x</p>' }, { 'X-Forwarded-For': ip }));
    const direct = await startServer({ rateLimit: 1 }, { engine });
    const proxied = await startServer({ rateLimit: 1, trustProxy: true }, { engine });
    try {
      // Without trust, both requests come from 127.0.0.1 whatever the header says.
      expect((await forwardedAs(direct, '203.0.113.1')).status).toBe(200);
      expect((await forwardedAs(direct, '203.0.113.2')).status).toBe(429);
      expect((await forwardedAs(proxied, '203.0.113.1')).status).toBe(200);
      expect((await forwardedAs(proxied, '203.0.113.2')).status).toBe(200);
      expect((await forwardedAs(proxied, '203.0.113.1')).status).toBe(429);
    } finally {
      await direct.close();
      await proxied.close();
    }
  });

  it('serves app.request() without a socket, as the app is built from its dependencies', async () => {
    const app = createApp(server.deps, '0.0.0-test');
    const response = await app.request('/api/pdfs/render-sync', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
      body: JSON.stringify({ htmlContent: '<p>No socket</p>' }),
    });
    expect(response.status).toBe(200);
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toBe('No socket');
  });
});

describe('authentication', () => {
  it('is open without keys, and with keys needs the right bearer key', async () => {
    const keyed = await startServer({ apiKeys: ['s3cret'] }, { engine });
    try {
      const body = { htmlContent: '<p>x</p>' };
      const missing = await sync(keyed, json(body));
      expect(missing.status).toBe(401);
      expect((await missing.json()).outcome).toBe('MISSING_API_KEY');
      const wrong = await sync(keyed, json(body, { Authorization: 'Bearer nope' }));
      expect(wrong.status).toBe(401);
      expect((await wrong.json()).outcome).toBe('INVALID_API_KEY');
      const right = await sync(keyed, json(body, { Authorization: 'Bearer s3cret' }));
      expect(right.status).toBe(200);
      const { fileUrl } = await right.json();
      // A file URL needs no key unless --private-files (file-urls.test.ts).
      expect((await fetch(fileUrl)).status).toBe(200);
      expect((await fetch(fileUrl, { headers: { Authorization: 'Bearer s3cret' } })).status).toBe(200);
      expect((await fetch(`${keyed.url}/healthz`)).status).toBe(200);
    } finally {
      await keyed.close();
    }
  });

  it('refuses keys of other lengths than the configured ones with 401 INVALID_API_KEY', async () => {
    const keyed = await startServer({ apiKeys: ['s3cret', 'a-much-longer-second-key-0123456789'] }, { engine });
    try {
      // Shorter, longer, a prefix, an extension, one character short of the long key; header values are Latin-1.
      for (const key of [
        's',
        's3cre',
        's3cretX',
        's3cret s3cret',
        'a-much-longer-second-key-012345678',
        'x'.repeat(5000),
        'ß3crét',
      ]) {
        const response = await sync(keyed, json({ htmlContent: '<p>x</p>' }, { Authorization: `Bearer ${key}` }));
        expect(response.status, key.slice(0, 40)).toBe(401);
        expect((await response.json()).outcome, key.slice(0, 40)).toBe('INVALID_API_KEY');
      }
      expect(
        (
          await sync(
            keyed,
            json({ htmlContent: '<p>x</p>' }, { Authorization: 'Bearer a-much-longer-second-key-0123456789' }),
          )
        ).status,
      ).toBe(200);
    } finally {
      await keyed.close();
    }
  });
});

describe('files, routes and operations', () => {
  it('keeps files for the retention period, then sweeps them from disk', async () => {
    const short = await startServer({ retention: '1h' }, { engine });
    try {
      const { fileUrl } = await (await sync(short, json({ htmlContent: '<p>kept</p>' }))).json();
      const filesDir = join(short.deps.config.dataDir, 'files');
      expect(await readdir(filesDir)).toHaveLength(1);
      short.clock.time += 59 * 60_000;
      expect((await fetch(fileUrl)).status).toBe(200);
      short.clock.time += 2 * 60_000;
      const gone = await fetch(fileUrl);
      expect(gone.status).toBe(404);
      expect((await gone.json()).outcome).toBe('NOT_FOUND');
      expect(await short.deps.files.sweep(short.clock.now())).toBe(1);
      expect(await readdir(filesDir)).toEqual([]);
    } finally {
      await short.close();
    }
  });

  it('builds file URLs on --public-url when set', async () => {
    const behindProxy = await startServer({ publicUrl: 'https://pdf.example.com/render/' }, { engine });
    try {
      const { fileUrl } = await (await sync(behindProxy, json({ htmlContent: '<p>x</p>' }))).json();
      expect(fileUrl).toMatch(/^https:\/\/pdf\.example\.com\/render\/api\/pdfs\/files\/[\w-]{22}$/);
      // The same file is served here under the path the proxy forwards.
      expect((await fetch(`${behindProxy.url}${new URL(fileUrl).pathname.replace('/render', '')}`)).status).toBe(200);
    } finally {
      await behindProxy.close();
    }
  });

  it('answers unknown routes with 404 and wrong methods with 405, as JSON', async () => {
    const unknown = await fetch(`${server.url}/api/nothing`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).outcome).toBe('NOT_FOUND');
    const wrongMethod = await fetch(`${server.url}/api/pdfs/render-sync`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
    expect((await wrongMethod.json()).outcome).toBe('METHOD_NOT_ALLOWED');
  });

  it('serves health, readiness and the OpenAPI document generated from the request schema', async () => {
    expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { browser: true, database: true, storage: true, accepting: true },
    });
    const document = await (await fetch(`${server.url}/openapi.json`)).json();
    expect(document.openapi).toBe('3.1.0');
    // JSON bodies are the named request schemas (components.schemas), in JSON's own types and
    // without default keywords; the form encodings are written in, with their defaults.
    const bodyOf = (name: string) => {
      const { $ref } = document.components.requestBodies[name].content['application/json'].schema;
      return document.components.schemas[$ref.replace('#/components/schemas/', '')];
    };
    const schema = bodyOf('RenderRequest');
    expect(schema.required).toBeUndefined();
    expect(schema.oneOf).toEqual([{ required: ['htmlContent'] }, { required: ['url'] }]);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(['htmlContent', 'paperWidth', 'marginTop', 'landscape', 'scale', 'printBackground']),
    );
    expect(schema.properties.landscape).toEqual({
      type: 'boolean',
      description: expect.stringContaining('default false'),
    });
    const form = document.components.requestBodies.RenderRequest.content['multipart/form-data'].schema;
    expect(form.properties.paperWidth.default).toBe('8.5in');
    expect(form.properties.landscape.type).toEqual(['boolean', 'string', 'number']);
    expect(bodyOf('AsyncRenderRequest').required).toEqual(['identifier']);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/api/pdfs/render-async', '/api/pdfs/jobs/{jobId}', '/api/webhooks']),
    );
    expect(Object.keys(document.paths['/api/pdfs/render-sync'].post.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '405',
      '413',
      '415',
      '421',
      '422',
      '429',
      '500',
      '503',
      '507',
    ]);
    // Each status's outcomes are the codes errors.ts maps to it.
    expect(
      document.paths['/api/pdfs/render-sync'].post.responses['503'].content['application/json'].schema.properties
        .outcome.enum,
    ).toEqual(['SHUTTING_DOWN', 'STORAGE_UNAVAILABLE', 'DATABASE_BUSY', 'BROWSER_NOT_FOUND']);
    expect(document.paths['/api/pdfs/render-sync'].post.responses['429'].headers).toEqual(
      expect.objectContaining({ 'Retry-After': expect.anything(), RateLimit: expect.anything() }),
    );
  });

  it('logs one access line per request, with its request ID', async () => {
    const before = server.logs.length;
    const response = await fetch(`${server.url}/healthz`);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.logs.slice(before)).toEqual([
      { requestId, method: 'GET', path: '/healthz', status: 200, ms: expect.any(Number), bytes: 15 },
    ]);
  });

  it("keeps a caller's X-Request-Id when it is a plain token, on the answer and on the request's error lines", async () => {
    const given = await fetch(`${server.url}/api/pdfs/jobs/nope`, { headers: { 'X-Request-Id': 'req-42.a:b' } });
    expect(given.status).toBe(404);
    expect(given.headers.get('x-request-id')).toBe('req-42.a:b');
    expect(server.logs.at(-1)?.requestId).toBe('req-42.a:b');
    // Anything else (spaces, a line break's worth of text, too long) is replaced, not written into the log.
    for (const bad of ['has space', 'x'.repeat(129), 'a\u00e9']) {
      const replaced = await fetch(`${server.url}/healthz`, { headers: { 'X-Request-Id': bad } });
      expect(replaced.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    // A failed render's event line, and a body sent without Content-Length (which the body limit reads
    // through a Request of its own), carry it too.
    const before = server.events.length;
    const body = JSON.stringify({ htmlContent: '<script>throw new Error("x")</script>', failOn: ['scriptErrors'] });
    const failed = await fetch(`${server.url}/api/pdfs/render-sync`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Request-Id': 'req-43' },
      body: new Blob([body]).stream(),
      duplex: 'half',
    } as RequestInit);
    expect(failed.status).toBe(400);
    const lines = server.events.slice(before);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.map((event) => event.requestId)).toEqual(lines.map(() => 'req-43'));
    expect(server.logs.at(-1)).toMatchObject({ requestId: 'req-43', status: 400 });
  });

  it('formats access-log lines as pretty text or JSON lines', () => {
    const lines: string[] = [];
    const entry = {
      requestId: 'req-1',
      method: 'POST',
      path: '/api/pdfs/render-sync',
      status: 200,
      ms: 812,
      bytes: 14_211,
    };
    accessLogWriter('pretty', (line) => lines.push(line))(entry);
    accessLogWriter('json', (line) => lines.push(line))(entry);
    expect(lines[0]).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z POST \/api\/pdfs\/render-sync 200 812 ms 14211 B req-1$/,
    );
    expect(JSON.parse(lines[1]!)).toEqual({ time: expect.stringMatching(/Z$/), ...entry });
  });

  it('refuses new work with 503 while draining, and /readyz says not ready while /healthz stays up', async () => {
    server.deps.lifecycle.draining = true;
    try {
      const response = await sync(server, json({ htmlContent: '<p>x</p>' }));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect((await response.json()).outcome).toBe('SHUTTING_DOWN');
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        status: 'not ready',
        checks: { browser: true, database: true, storage: true, accepting: false },
      });
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      server.deps.lifecycle.draining = false;
    }
    expect(existsSync(server.deps.config.dataDir)).toBe(true);
  });
});
