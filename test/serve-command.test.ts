/**
 * `pdfrender serve` as a process: configuration from flags and PDFRENDER_* variables, the start-up
 * line, and a graceful stop that lets a render in flight finish.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServeConfig } from '../src/server/config.js';
import { databasePath } from '../src/store/open-store.js';
import { keyOwner } from '../src/store/owners.js';
import { openDb } from '../src/store/sqlite/open-db.js';
import { webhookEndpoints } from '../src/store/sqlite/webhook-endpoints.js';
import { isPdfRenderError } from '../src/errors.js';
import { pdfrender, startServe } from './support/cli.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { startGate } from './support/gate.js';
import { readPdf } from './support/pdf.js';
import { until } from './support/wait.js';

afterAll(removeTempDirs);

describe('serve configuration', () => {
  it('takes flags over PDFRENDER_* variables over defaults', () => {
    const env = {
      PDFRENDER_PORT: '4000',
      PDFRENDER_RATE_LIMIT: '5',
      PDFRENDER_API_KEYS: 'a, b ,c',
      PDFRENDER_MAX_BODY: '2mb',
      PDFRENDER_RETENTION: '90m',
    };
    const config = loadServeConfig({ port: '5000' }, env, '/srv');
    expect(config).toMatchObject({
      port: 5000,
      rateLimit: 5,
      apiKeys: ['a', 'b', 'c'],
      maxBody: 2 * 1024 * 1024,
      retention: 90 * 60_000,
      host: '127.0.0.1',
      logFormat: 'pretty',
      trustProxy: 0,
    });
    expect(config.dataDir).toBe('/srv/.pdfrender');
    expect(Object.isFrozen(config)).toBe(true);
    expect(loadServeConfig({ apiKeys: ['x'] }, env, '/srv').apiKeys).toEqual(['x']);
  });

  it('reads every other serve setting from its PDFRENDER_* twin too', () => {
    const env = {
      PDFRENDER_HOST: '0.0.0.0',
      PDFRENDER_DATA_DIR: 'state/pdf',
      PDFRENDER_CONCURRENCY: '3',
      PDFRENDER_PUBLIC_URL: 'https://pdf.example.com/base',
      PDFRENDER_TRUST_PROXY: 'TRUE',
      PDFRENDER_SHUTDOWN_GRACE: '2s',
    };
    expect(loadServeConfig({}, env, '/srv')).toMatchObject({
      host: '0.0.0.0',
      dataDir: '/srv/state/pdf',
      concurrency: 3,
      publicUrl: 'https://pdf.example.com/base',
      trustProxy: 1,
      shutdownGrace: 2000,
    });
    // Flags still win, and an empty variable counts as unset.
    const flags = {
      host: '::1',
      dataDir: '/var/lib/pdfrender',
      concurrency: '5',
      publicUrl: 'http://localhost:8080',
      trustProxy: false,
      shutdownGrace: '1m',
    };
    expect(loadServeConfig(flags, env, '/srv')).toMatchObject({
      ...flags,
      concurrency: 5,
      trustProxy: 0,
      shutdownGrace: 60_000,
    });
    expect(loadServeConfig({}, { PDFRENDER_HOST: '', PDFRENDER_TRUST_PROXY: '' }, '/srv')).toMatchObject({
      host: '127.0.0.1',
      trustProxy: 0,
    });
    // Bad values name the variable.
    expect(() =>
      loadServeConfig(
        {},
        {
          PDFRENDER_CONCURRENCY: '0',
          PDFRENDER_PUBLIC_URL: 'ftp://x',
          PDFRENDER_TRUST_PROXY: 'maybe',
          PDFRENDER_SHUTDOWN_GRACE: 'soon',
        },
        '/srv',
      ),
    ).toThrow(
      /--concurrency \(PDFRENDER_CONCURRENCY\)[\s\S]*--public-url \(PDFRENDER_PUBLIC_URL\)[\s\S]*--trust-proxy \(PDFRENDER_TRUST_PROXY\)[\s\S]*--shutdown-grace \(PDFRENDER_SHUTDOWN_GRACE\)/,
    );
  });

  it('names the flag and its variable for every bad value', () => {
    const error = (() => {
      try {
        loadServeConfig({ port: '70000', logFormat: 'xml' }, { PDFRENDER_MAX_BODY: 'huge' }, '/srv');
      } catch (e) {
        return e;
      }
    })();
    expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('--port (PDFRENDER_PORT): must be between 0 and 65535 (got 70000)');
    expect(message).toContain('--log-format (PDFRENDER_LOG_FORMAT):');
    expect(message).toContain('--max-body (PDFRENDER_MAX_BODY): must be a positive amount such as "10mb"');
  });
});

describe('a blank API key fails closed', () => {
  it.each([
    ['--api-key ""', { apiKeys: [''] }, {}],
    ['--api-key " " beside a real key', { apiKeys: ['k1', ' '] }, {}],
    ['PDFRENDER_API_KEYS=" , "', {}, { PDFRENDER_API_KEYS: ' , ' }],
    ['PDFRENDER_API_KEYS="a,,b"', {}, { PDFRENDER_API_KEYS: 'a,,b' }],
  ])('%s is a start-up error naming the flag and its variable', (_name, flags, env) => {
    const error = (() => {
      try {
        loadServeConfig(flags, env, '/srv');
      } catch (e) {
        return e;
      }
    })();
    expect(isPdfRenderError(error, 'VALIDATION_FAILED')).toBe(true);
    expect((error as Error).message).toBe(
      '--api-key (PDFRENDER_API_KEYS): a blank API key would leave authentication off; give the key, or leave the setting out to run without auth',
    );
  });

  it('serve exits 2 with one line, before starting anything', async () => {
    const run = await pdfrender(['serve', '--port', '0', '--api-key', '']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'pdfrender: --api-key (PDFRENDER_API_KEYS): a blank API key would leave authentication off; give the key, or leave the setting out to run without auth',
    ]);
  });

  it('keys with surrounding spaces are trimmed, not refused', () => {
    expect(loadServeConfig({}, { PDFRENDER_API_KEYS: ' k1 , k2 ' }, '/srv').apiKeys).toEqual(['k1', 'k2']);
  });
});

describe('pdfrender serve', () => {
  let running: ChildProcess | undefined;
  afterAll(() => running?.kill('SIGKILL'));

  it('prints where it listens, finishes a render in flight on SIGTERM, and exits 0', async () => {
    const dataDir = await tempDir();
    // The document waits on a loopback gate: in flight until the test opens it (--allow-host lets it reach loopback).
    const gate = await startGate();
    const server = await startServe(['--data-dir', dataDir, '--log-format', 'json', '--allow-host', '127.0.0.1'], {
      PDFRENDER_RATE_LIMIT: '7',
    });
    running = server.child;
    try {
      expect(server.stderr()).toMatch(
        /pdfrender \S+ listening on http:\/\/127\.0\.0\.1:\d+ \(auth off; rate limit 7\/min; data in /,
      );
      expect(existsSync(join(dataDir, 'pdfrender.db'))).toBe(true);

      const inFlight = fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
        body: JSON.stringify({ htmlContent: `<img src="${gate.url}"><p>finished in flight</p>` }),
      });
      await gate.reached(1);
      server.child.kill('SIGTERM');
      // Shutting down with the render still held at the gate; only then may it finish.
      await until(() => server.stderr().includes('pdfrender: shutting down'), 'the shutdown line');
      gate.open();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]!.text).toBe('finished in flight');
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toContain('pdfrender: stopped');
      // The access log line, as a JSON line.
      const logLine = server
        .stderr()
        .split('\n')
        .find((line) => line.startsWith('{'))!;
      expect(JSON.parse(logLine)).toMatchObject({ method: 'POST', path: '/api/pdfs/render-sync', status: 200 });
    } finally {
      gate.close();
    }
  });

  it("logs an expected failure (the document's deadline, a url the policy refused) as one line, no stack", async () => {
    // A port nobody listens on, on a loopback address the server is allowed to reach.
    const closed = createTcpServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.2', resolve));
    const refusedUrl = `http://127.0.0.2:${(closed.address() as AddressInfo).port}/`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const server = await startServe(['--data-dir', await tempDir(), '--timeout', '500ms', '--allow-host', '127.0.0.2']);
    running = server.child;
    try {
      const bodies = [
        { htmlContent: '<script>while (true) {}</script>' },
        { url: 'http://127.0.0.1:3999/' },
        { url: refusedUrl },
      ];
      for (const body of bodies) {
        const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(response.status).toBe(400);
      }
      const failures = () =>
        server
          .stderr()
          .split('\n')
          .filter((line) => line.includes('render failed'));
      await until(() => failures().length === 3, 'the failures logged');
      expect(failures()).toEqual([
        expect.stringMatching(
          /WARN render failed \(POST \/api\/pdfs\/render-sync RENDER_PDF_FAILED\): the document did not finish rendering within the 0\.5 s deadline$/,
        ),
        expect.stringMatching(
          /WARN render failed \(.*\): url http:\/\/127\.0\.0\.1:3999\/ was not loaded: blocked by the network policy/,
        ),
        expect.stringMatching(/WARN render failed \(.*\): url .* was not loaded: the server refused the connection$/),
      ]);
      expect(server.stderr()).not.toMatch(/\n\s+at /);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('answers a render still going when --shutdown-grace runs out with JSON 503, then exits 0', async () => {
    // Held at a gate that never opens: the render cannot finish, so only the grace running out answers it.
    const gate = await startGate();
    const server = await startServe([
      '--data-dir',
      await tempDir(),
      '--shutdown-grace',
      '300ms',
      '--allow-host',
      '127.0.0.1',
    ]);
    running = server.child;
    try {
      const inFlight = fetch(`${server.url}/api/pdfs/render-sync`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ htmlContent: gate.document() }),
      });
      await gate.reached(1);
      server.child.kill('SIGTERM');
      const response = await inFlight;
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.headers.get('ratelimit-policy')).toBe('"sync";q=60;w=60');
      expect(await response.json()).toEqual({
        outcome: 'SHUTTING_DOWN',
        message: 'the server stopped before the document finished rendering; send it again',
      });
      expect(await server.exited).toBe(0);
      expect(server.stderr()).toContain('pdfrender: shutdown grace ran out; stopping 1 request(s) in flight');
      // The default access-log format is the pretty one, ending with the request's ID.
      expect(server.stderr()).toMatch(
        /^\d{4}-\d\d-\d\dT[\d:.]+Z POST \/api\/pdfs\/render-sync 503 \d+ ms \d+ B [0-9a-f-]{36}$/m,
      );
      expect(server.stderr()).toContain('pdfrender: stopped');
    } finally {
      gate.close();
    }
  });

  it('turns auth on with --api-key (and with PDFRENDER_API_KEYS)', async () => {
    const cases = [
      [['--api-key', 'flag-key', '--api-key', 'other-key'], {}, 'other-key'],
      [[], { PDFRENDER_API_KEYS: 'env-key,second' }, 'second'],
    ] as const;
    // The two servers side by side: each its own process, data dir and browser.
    const check = async ([args, env, key]: (typeof cases)[number]) => {
      const server = await startServe([...args, '--data-dir', await tempDir()], env);
      try {
        expect(server.stderr()).toMatch(/\(auth on \(2 API keys\);/);
        // Said at start: with keys on, file downloads still need none (unless --private-files).
        await until(
          () => server.stderr().includes('pdfrender: file URLs download without the API key'),
          'the notice about file URLs',
        );
        const post = (headers: Record<string, string>) =>
          fetch(`${server.url}/api/pdfs/render-sync`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', ...headers },
            body: '{"htmlContent":"<p>k</p>"}',
          });
        expect((await post({})).status).toBe(401);
        expect((await post({ Authorization: `Bearer ${key}` })).status).toBe(200);
        server.child.kill('SIGTERM');
        expect(await server.exited).toBe(0);
      } finally {
        server.child.kill('SIGKILL'); // a no-op once it has exited
      }
    };
    await Promise.all(cases.map(check));
  });

  it('says at start which webhook endpoints belong to no key, since they receive no events once keys are set', async () => {
    const dataDir = await tempDir();
    const db = openDb(databasePath(dataDir));
    const endpoints = webhookEndpoints(db);
    endpoints.add('https://example.com/old', 1);
    endpoints.add('https://example.com/theirs', 2, keyOwner('the-key'));
    db.close();
    const server = await startServe(['--api-key', 'the-key', '--data-dir', dataDir]);
    try {
      await until(
        () => server.stderr().includes('pdfrender: 1 webhook endpoint belongs to no API key and receives no events'),
        'the notice about endpoints of no key',
      );
      expect(server.stderr()).toContain('pdfrender webhooks assign <id> --for-key <key>');
    } finally {
      server.child.kill('SIGKILL');
    }
  });

  it('warns when it listens beyond this machine without an API key', async () => {
    const server = await startServe(['--host', '0.0.0.0', '--data-dir', await tempDir()]);
    running = server.child;
    // The warning follows the listening line.
    await until(() => server.stderr().includes('warning'), 'the warning line');
    expect(server.stderr()).toMatch(/warning: listening on 0\.0\.0\.0 with no API key/);
    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
  });
});
