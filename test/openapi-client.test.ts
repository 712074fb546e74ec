/**
 * The OpenAPI document as a user meets it: it passes Redocly's recommended rules, and a client
 * generated from it by openapi-typescript (with openapi-fetch) type-checks under strict TypeScript
 * and calls a running server: render-sync (JSON and the PDF itself), a validation error, webhooks,
 * render-async, the job's status, the file, and the webhook event a receiver gets. Every JSON answer
 * is also parsed with the answer schemas the document is generated from, strictly, so a field the
 * server sends and the document does not name fails here.
 */
import { symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { transform } from 'esbuild';
import openapiTS, { astToString } from 'openapi-typescript';
import { Webhook } from 'standardwebhooks';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  asyncAccepted,
  jobAnswer,
  renderSyncAnswer,
  webhookAnswers,
  webhookEvents,
} from '../src/server/api/api-answers.js';
import { createEngine, type Engine } from '../src/engine/engine.js';
import { executablePath } from './support/browser.js';
import { removeTempDirs, tempDir } from './support/files.js';
import { readPdf, readPdfInfo } from './support/pdf.js';
import { receiver, type Receiver } from './support/receiver.js';
import { startServer, type TestServer } from './support/server.js';
import { until } from './support/wait.js';

const apiKey = 'typed-client-key';

/**
 * What a user writes against the generated types. The @ts-expect-error lines prove the types are
 * precise: were an answer typed `any` (or the PDF and JSON answers one union), they would be unused
 * and the type check would fail.
 */
const clientSource = `
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type WebhookEvent = components['schemas']['PdfRenderedEvent'] | components['schemas']['RenderPdfFailedEvent'];

export async function run(baseUrl: string, key: string, hookUrl: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${key}\` } });

  const sync = await client.POST('/api/pdfs/render-sync', { body: { htmlContent: '<h1>Typed sync</h1>', paperWidth: '148mm', paperHeight: '210mm', metadata: { title: 'Typed title', keywords: ['a', 'b'] } } });
  if (!sync.data) throw new Error(\`render-sync: \${JSON.stringify(sync.error)}\`);
  const fileUrl: string = sync.data.fileUrl;
  const pages: number = sync.data.pages;
  // @ts-expect-error the JSON answer is not the PDF
  sync.data.byteLength;
  // metadata's keys are in the document, so a misspelt one does not compile.
  type Metadata = NonNullable<components['requestBodies']['RenderRequest']['content']['application/json']['metadata']>;
  // @ts-expect-error metadata has no key "titel"
  const typo: Metadata = { titel: 'x' };
  void typo;
  // JSON takes JSON's own booleans: a form's words do not compile.
  type JsonRequest = components['requestBodies']['RenderRequest']['content']['application/json'];
  const sideways: JsonRequest = {
    htmlContent: '<p>x</p>',
    // @ts-expect-error landscape is a boolean in JSON
    landscape: 'sideways',
  };
  void sideways;
  // The request is a named schema a client can import, and a request of one field is one.
  const named: components['schemas']['RenderRequest'] = { htmlContent: '<p>named</p>' };
  void named;

  const bytes = await client.POST('/api/pdfs/render-sync.pdf', { body: { htmlContent: '<p>Typed bytes</p>', landscape: true }, parseAs: 'arrayBuffer' });
  if (!bytes.data) throw new Error(\`render-sync.pdf: \${JSON.stringify(bytes.error)}\`);
  const pdf: ArrayBuffer = bytes.data;

  const invalid = await client.POST('/api/pdfs/render-sync', { body: { htmlContent: '<p>x</p>', scale: 7 } });
  if (!invalid.error || invalid.error.outcome !== 'VALIDATION_FAILED') throw new Error('a scale of 7 was accepted');
  const invalidFields: string[] = Object.keys(invalid.error.errors);

  const added = await client.POST('/api/webhooks', { body: { url: hookUrl } });
  if (!added.data || added.response.status !== 201) throw new Error(\`add webhook: \${JSON.stringify(added.error)}\`);
  const { id, secret } = added.data as components['schemas']['WebhookCreated'];

  const queued = await client.POST('/api/pdfs/render-async', { body: { htmlContent: '<h1>Typed async</h1>', identifier: 'typed-1', priority: 3 } });
  if (!queued.data) throw new Error(\`render-async: \${JSON.stringify(queued.error)}\`);
  const jobId: string = queued.data.jobId;
  // @ts-expect-error the 202 answer has no fileUrl
  queued.data.fileUrl;

  let job: components['schemas']['Job'] | undefined;
  for (let tries = 0; tries < 600 && job?.status !== 'succeeded' && job?.status !== 'failed'; tries += 1) {
    const status = await client.GET('/api/pdfs/jobs/{jobId}', { params: { path: { jobId } } });
    if (!status.data) throw new Error(\`job status: \${JSON.stringify(status.error)}\`);
    job = status.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const missing = await client.GET('/api/pdfs/jobs/{jobId}', { params: { path: { jobId: 'job_none' } } });
  const missingOutcome: 'NOT_FOUND' | undefined = missing.error?.outcome === 'NOT_FOUND' ? missing.error.outcome : undefined;

  const fileId = new URL(job!.fileUrl!).pathname.split('/').pop()!;
  const file = await client.GET('/api/pdfs/files/{fileId}', { params: { path: { fileId } }, parseAs: 'arrayBuffer' });
  if (!file.data) throw new Error('file download failed');

  const listed = await client.GET('/api/webhooks');
  const rotated = await client.POST('/api/webhooks/{id}/rotate', { params: { path: { id } }, body: { key: true } });
  const health = await client.GET('/readyz');
  return {
    sync: sync.data, fileUrl, pages, pdf, invalidFields, added: added.data, jobId, queued: queued.data, job: job!, missingOutcome,
    asyncPdf: file.data, listed: listed.data, rotated: rotated.data, ready: health.data?.status, secret,
    remove: async () => (await client.DELETE('/api/webhooks/{id}', { params: { path: { id } } })).data,
  };
}

/** A receiver's reading of an event, by its type. */
export function readEvent(body: string): { type: string; fileUrl?: string; jobId: string } {
  const event = JSON.parse(body) as WebhookEvent;
  if (event.type === 'PDF_RENDERED') return { type: event.type, fileUrl: event.payload.url, jobId: event.payload.jobId };
  // @ts-expect-error a failed render's event has no url
  event.payload.url;
  return { type: event.type, jobId: event.payload.jobId };
}
`;

let engine: Engine;
let server: TestServer;
let hook: Receiver;
let document: Record<string, unknown>;

beforeAll(async () => {
  engine = createEngine({ executablePath, concurrency: 2, timeoutMs: 20_000 });
  // The real clock: the receiver checks the webhook's timestamp against it.
  server = await startServer({ apiKeys: [apiKey] }, { engine }, { realClock: true });
  hook = await receiver();
  document = await (await fetch(`${server.url}/openapi.json`)).json();
});

afterAll(async () => {
  hook?.close();
  await server?.close();
  await engine?.close();
  await removeTempDirs();
});

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules with no error or warning, and names this server", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: `${server.url}/openapi.json`,
      config,
    });
    expect(
      problems.map(
        (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
      ),
    ).toEqual([]);
    expect(document.servers).toEqual([{ url: server.url }]);
  });

  it('names every route the server has: each documented path answers another method with 405 and the documented methods in Allow', async () => {
    const paths = document.paths as Record<string, Record<string, unknown>>;
    for (const [path, operations] of Object.entries(paths)) {
      const response = await fetch(`${server.url}${path.replace(/\{[^}]+\}/g, 'some-id')}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect({ path, status: response.status, allow: response.headers.get('allow') }).toEqual({
        path,
        status: 405,
        // A GET route answers HEAD too.
        allow: Object.keys(operations)
          .flatMap((method) => (method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]))
          .join(', '),
      });
    }
    expect(Object.keys(paths)).toEqual(
      expect.arrayContaining([
        '/api/pdfs/render-sync',
        '/api/pdfs/render-sync.pdf',
        '/api/pdfs/jobs/{jobId}',
        '/healthz',
        '/openapi.json',
      ]),
    );
  });

  it("documents every route the server serves: app.routes and the document's paths agree both ways (the playground's page and assets aside)", () => {
    // Hono's ':id' is OpenAPI's '{id}'; middleware is mounted for ALL methods and serves nothing itself.
    const served = new Set(
      server.routes
        .filter((route) => route.method !== 'ALL')
        .map((route) => `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`),
    );
    const playground = ['GET /', 'GET /playground.js', 'GET /playground.css'];
    const documented = new Set(
      Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`),
      ),
    );
    expect([...served].filter((route) => !documented.has(route) && !playground.includes(route))).toEqual([]);
    expect([...documented].filter((route) => !served.has(route))).toEqual([]);
    // The playground is served here (a loopback server without --public-url), so the exception is a real one.
    expect(playground.every((route) => served.has(route))).toBe(true);
  });

  it('render-sync.pdf answers the PDF whatever Accept says, with the headers its operation documents', async () => {
    const response = await fetch(`${server.url}/api/pdfs/render-sync.pdf`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ htmlContent: '<p>Whatever Accept says</p><img src="https://blocked.invalid/x.png">' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect((await readPdf(new Uint8Array(await response.arrayBuffer()))).pages[0]?.text).toContain(
      'Whatever Accept says',
    );
    const documented = Object.keys(
      (document as { paths: Record<string, { post: { responses: Record<string, { headers: object }> } }> }).paths[
        '/api/pdfs/render-sync.pdf'
      ]!.post.responses['200']!.headers,
    );
    const sent = [
      'RateLimit',
      'RateLimit-Policy',
      'Content-Location',
      'Content-Disposition',
      'X-Pdfrender-Blocked',
      'X-Pdfrender-Blocked-Count',
    ];
    expect(documented).toEqual(expect.arrayContaining(sent));
    for (const name of sent)
      expect({ name, value: response.headers.get(name) }).toEqual({ name, value: expect.any(String) });
  });

  it('makes an openapi-typescript client that type-checks strictly and calls the running server', async () => {
    const dir = await tempDir();
    await symlink(resolve('node_modules'), join(dir, 'node_modules'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(dir, 'api.ts'), astToString(await openapiTS(document as never)));
    await writeFile(join(dir, 'client.ts'), clientSource);

    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);

    const { code } = await transform(clientSource, { loader: 'ts', format: 'esm' });
    await writeFile(join(dir, 'client.mjs'), code);
    const client = await import(pathToFileURL(join(dir, 'client.mjs')).href);
    const result = await client.run(server.url, apiKey, hook.url);

    // Every JSON answer is what the document says, to the field.
    renderSyncAnswer.parse(result.sync);
    webhookAnswers.created.parse(result.added);
    asyncAccepted.parse(result.queued);
    jobAnswer.parse(result.job);
    webhookAnswers.list.parse(result.listed);
    webhookAnswers.rotated.parse(result.rotated);

    expect(result.pages).toBe(1);
    const synced = await readPdf(new Uint8Array(await (await fetch(result.fileUrl)).arrayBuffer()));
    expect(synced.pages[0]?.text).toContain('Typed sync');
    expect(await readPdfInfo(new Uint8Array(await (await fetch(result.fileUrl)).arrayBuffer()))).toMatchObject({
      Title: 'Typed title',
      Keywords: 'a, b',
    });
    expect(synced.pages[0]).toMatchObject({ width: expect.closeTo(420, 0), height: expect.closeTo(596, 0) });
    const bytes = await readPdf(new Uint8Array(result.pdf));
    expect(bytes.pages[0]?.text).toContain('Typed bytes');
    expect(bytes.pages[0]).toMatchObject({ width: 792, height: 612 });
    expect(result.invalidFields).toEqual(['scale']);

    expect(result.job).toMatchObject({ status: 'succeeded', identifier: 'typed-1', priority: 3, pages: 1 });
    expect(result.missingOutcome).toBe('NOT_FOUND');
    expect((await readPdf(new Uint8Array(result.asyncPdf))).pages[0]?.text).toContain('Typed async');
    expect(result.ready).toBe('ready');

    // The event as the receiver gets it: signed with the secret, of the documented shape, read by the typed reader.
    await until(() => hook.received.length >= 1, 'the PDF_RENDERED event');
    const [arrival] = hook.received;
    const event = new Webhook(result.secret).verify(arrival!.body, arrival!.headers as Record<string, string>);
    webhookEvents.PDF_RENDERED.parse(event);
    expect(client.readEvent(arrival!.body)).toEqual({
      type: 'PDF_RENDERED',
      fileUrl: result.job.fileUrl,
      jobId: result.jobId,
    });

    webhookAnswers.removed.parse(await result.remove());
  });
});
