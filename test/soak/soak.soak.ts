/**
 * Soak test: many mixed renders through a real `pdfrender serve` child process (render-sync as
 * JSON, as application/pdf and as multipart, and render-async with webhooks to a local receiver),
 * sampling the server's process tree from /proc. After warm-up, memory and the number of Chromium
 * processes must stay flat. Kept out of `npm test` (the file name misses its `*.test.ts` pattern);
 * run it with `npm run soak`, or `SOAK_RENDERS=300 npm run soak` for a short one.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { readPdf } from '../support/pdf.js';
import { documents, runaway, type SoakDocument } from './documents.js';
import { isRunning, sampleTree, type TreeSample } from './process-tree.js';

/** A positive whole number from the environment, or `fallback`. */
function envCount(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1) throw new Error(`${name} must be a positive whole number (got ${value})`);
  return count;
}

const renders = envCount('SOAK_RENDERS', 2000);
const clients = envCount('SOAK_CONCURRENCY', 4);
const warmUp = envCount('SOAK_WARMUP', Math.min(200, Math.floor(renders / 3)));
const sampleEvery = envCount('SOAK_SAMPLE_EVERY', Math.max(10, Math.round(renders / 40)));
// One runaway script in 200: each one holds a page for the whole deadline, so more would dominate the time.
const runawayEvery = 200;
// Queued async work waits behind every sync request, so unbounded it would all render at the end.
const maxAwaitingWebhooks = 8;
const baselineSamples = 3;
const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'bin/pdfrender.js');

type Transport = 'sync-json' | 'sync-pdf' | 'multipart' | 'async';
const transports: Transport[] = ['sync-json', 'sync-pdf', 'multipart', 'async'];

/** What request number `i` sends: every transport meets every document. */
function plan(i: number): { transport: Transport; document: SoakDocument } {
  if (i % runawayEvery === runawayEvery / 2) return { transport: 'sync-json', document: runaway };
  return {
    transport: transports[i % transports.length]!,
    document: documents[(i + Math.floor(i / transports.length)) % documents.length]!,
  };
}

interface Sample {
  phase: 'start' | 'warm-up' | 'soak' | 'end';
  renders: number;
  seconds: number;
  rssMb: number;
  pssMb: number;
  processes: number;
  chromium: number;
  awaitingWebhooks: number;
}

/** Start `pdfrender serve` and wait for the address it prints; its stderr is read (and the tail kept) until it exits. */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; url: string; log: string[] }> {
  const args = [
    'serve',
    '--port',
    '0',
    '--data-dir',
    dataDir,
    '--rate-limit',
    '100000',
    '--concurrency',
    '2',
    '--timeout',
    '3s',
    '--allow-private-webhooks',
  ];
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const log: string[] = [];
  let partial = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      log.push(...lines);
      log.splice(0, Math.max(0, log.length - 100));
      const match = /listening on (http:\/\/\S+)/.exec(lines.join('\n'));
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening:\n${log.join('\n')}`)));
    setTimeout(() => reject(new Error('the server did not say where it listens within 60 s')), 60_000).unref();
  });
  return { child, url, log };
}

/** SIGTERM the server and wait for it to exit; SIGKILL after a minute. */
async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  await exited;
  clearTimeout(timer);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
const mb = (kb: number) => Math.round(kb / 102.4) / 10;

it(
  `stays flat over ${renders} mixed renders through the server`,
  async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pdfrender-soak-'));
    const errors: string[] = [];
    const fail = (message: string) => errors.push(message);

    // Async jobs whose webhook has not come yet, by identifier; a webhook wakes whoever waits for room.
    const awaiting = new Map<string, SoakDocument>();
    const wakers: Array<() => void> = [];
    const pdfChecks: Array<Promise<void>> = [];
    let secret = '';
    let webhooks = 0;
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(204).end();
        webhooks += 1;
        try {
          const event = new Webhook(secret).verify(
            Buffer.concat(chunks).toString('utf8'),
            req.headers as Record<string, string>,
          ) as {
            type: string;
            payload: { id: string; url?: string; pages?: number; error?: string };
          };
          const document = awaiting.get(event.payload.id);
          awaiting.delete(event.payload.id);
          if (!document) fail(`webhook for ${event.payload.id}: not awaited (a duplicate or an unknown job)`);
          else if (event.type !== 'PDF_RENDERED')
            fail(`webhook for ${event.payload.id} (${document.name}): ${event.type} ${event.payload.error ?? ''}`);
          else if (event.payload.pages !== document.expect!.pages)
            fail(
              `webhook for ${event.payload.id} (${document.name}): ${event.payload.pages} pages, expected ${document.expect!.pages}`,
            );
          else if (webhooks % 10 === 0)
            pdfChecks.push(checkPdfAt(event.payload.url!, document, `async ${event.payload.id}`));
        } catch (error) {
          fail(`webhook: ${(error as Error).message}`);
        }
        wakers.splice(0).forEach((wake) => wake());
      });
    });
    await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/pdf-ready`;
    // Loopback webhook URLs are refused unless --allow-private-webhooks is given (here and on serve).
    const added = execFileSync(
      process.execPath,
      [bin, 'webhooks', 'add', hookUrl, '--data-dir', dataDir, '--json', '--allow-private-webhooks'],
      {
        encoding: 'utf8',
      },
    );
    secret = (JSON.parse(added) as { secret: string }).secret;

    const server = await startServer(dataDir);
    const samples: Sample[] = [];
    let lastTree: TreeSample | undefined;
    const started = performance.now();
    const sample = (phase: Sample['phase'], count: number) => {
      const tree = sampleTree(server.child.pid!);
      lastTree = tree;
      samples.push({
        phase,
        renders: count,
        seconds: Math.round((performance.now() - started) / 100) / 10,
        rssMb: mb(tree.rssKb),
        pssMb: mb(tree.pssKb),
        processes: tree.processes,
        chromium: tree.chromium,
        awaitingWebhooks: awaiting.size,
      });
    };

    /** Read a stored PDF and check its pages and text. */
    async function checkPdfAt(url: string, document: SoakDocument, where: string): Promise<void> {
      const response = await fetch(url, { signal: AbortSignal.timeout(60_000) });
      await checkPdf(new Uint8Array(await response.arrayBuffer()), document, where);
    }
    async function checkPdf(bytes: Uint8Array, document: SoakDocument, where: string): Promise<void> {
      const pdf = await readPdf(bytes);
      const text = pdf.pages.map((page) => page.text).join(' ');
      if (pdf.pages.length !== document.expect!.pages || !text.includes(document.expect!.text))
        fail(`${where}: PDF has ${pdf.pages.length} pages and text "${text.slice(0, 80)}"`);
    }

    let pdfResponses = 0;
    /** Send request number `i` and check its answer; a problem is returned, not thrown. */
    async function send(i: number): Promise<string | undefined> {
      const { transport, document } = plan(i);
      const where = `#${i} ${transport} ${document.name}`;
      const signal = AbortSignal.timeout(120_000);
      const json = (fields: Record<string, string>) => ({
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(fields),
        signal,
      });
      if (transport === 'async') {
        for (const deadline = Date.now() + 300_000; awaiting.size >= maxAwaitingWebhooks;) {
          if (Date.now() > deadline) return `${where}: ${awaiting.size} webhooks still missing after 5 minutes`;
          await new Promise<void>((wake) => {
            wakers.push(wake);
            setTimeout(wake, 1000);
          });
        }
        const identifier = `soak-${i}`;
        awaiting.set(identifier, document); // before the request: the webhook may beat the 202
        const response = await fetch(
          `${server.url}/api/pdfs/render-async`,
          json({ ...document.fields, identifier }),
        ).catch((error: Error) => error);
        const body =
          response instanceof Response ? ((await response.json().catch(() => ({}))) as { outcome?: string }) : {};
        if (!(response instanceof Response)) {
          awaiting.delete(identifier);
          return `${where}: ${response.message}`;
        }
        if (response.status === 202 && body.outcome === 'SUCCESS') return undefined;
        awaiting.delete(identifier);
        return `${where}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`;
      }
      if (transport === 'sync-pdf') {
        const response = await fetch(`${server.url}/api/pdfs/render-sync`, {
          ...json(document.fields),
          headers: { 'Content-Type': 'application/json', Accept: 'application/pdf' },
        });
        const bytes = new Uint8Array(await response.arrayBuffer());
        const head = Buffer.from(bytes.subarray(0, 5)).toString('latin1');
        if (response.status !== 200 || response.headers.get('content-type') !== 'application/pdf' || head !== '%PDF-')
          return `${where}: ${response.status} ${response.headers.get('content-type')} ${Buffer.from(bytes.subarray(0, 200)).toString()}`;
        // Parsing every PDF would compete with Chromium for the two cores; one in ten is read whole.
        if (++pdfResponses % 10 === 0) await checkPdf(bytes, document, where);
        return undefined;
      }
      let init: RequestInit = json(document.fields);
      if (transport === 'multipart') {
        const form = new FormData();
        for (const [name, value] of Object.entries(document.fields)) {
          // The HTML fields as uploaded files, the rest as plain form fields, as curl -F would send them.
          if (name.endsWith('HtmlContent') || name === 'htmlContent')
            form.append(name, new Blob([value], { type: 'text/html' }), `${name}.html`);
          else form.append(name, value);
        }
        init = { method: 'POST', body: form, signal };
      }
      const response = await fetch(`${server.url}/api/pdfs/render-sync`, init);
      const body = (await response.json().catch(() => ({}))) as { outcome?: string; pages?: number };
      const ok = document.expect
        ? response.status === 200 && body.outcome === 'SUCCESS' && body.pages === document.expect.pages
        : response.status === 400 && body.outcome === 'RENDER_PDF_FAILED';
      return ok ? undefined : `${where}: ${response.status} ${JSON.stringify(body).slice(0, 200)}`;
    }

    let requestErrors = 0;
    let chromiumLeft: number[] = [];
    let elapsed = 0;
    try {
      sample('start', 0);
      let next = 0;
      let done = 0;
      await Promise.all(
        Array.from({ length: clients }, async () => {
          while (next < renders) {
            const i = next++;
            const problem = await send(i).catch((error: Error) => `#${i}: ${error.message}`);
            if (problem) {
              requestErrors += 1;
              fail(problem);
            }
            done += 1;
            if (done % sampleEvery === 0) sample(done <= warmUp ? 'warm-up' : 'soak', done);
          }
        }),
      );
      for (const deadline = Date.now() + 300_000; awaiting.size > 0 && Date.now() < deadline;) await sleep(200);
      elapsed = (performance.now() - started) / 1000;
      for (const identifier of awaiting.keys()) fail(`webhook for ${identifier}: never came`);
      await Promise.all(pdfChecks.map((check) => check.catch((error: Error) => fail(`PDF check: ${error.message}`))));
      sample('end', renders);
    } finally {
      await stopServer(server.child);
      // The browser and its helpers go with the server; give the kernel a moment to reap them.
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(200)) {
        chromiumLeft = (lastTree?.chromiumPids ?? []).filter(isRunning);
        if (chromiumLeft.length === 0) break;
      }
      receiver.close();
      await rm(dataDir, { recursive: true, force: true });
    }

    const soak = samples.filter((s) => s.phase === 'soak' || s.phase === 'end');
    const baseline = soak.slice(0, baselineSamples);
    const figures = {
      renders,
      clients,
      warmUp,
      sampleEvery,
      seconds: Math.round(elapsed * 10) / 10,
      rendersPerSecond: Math.round((renders / elapsed) * 10) / 10,
      errors: errors.length,
      requestErrors,
      rssBaselineMb: median(baseline.map((s) => s.rssMb)),
      rssMaxMb: Math.max(...soak.map((s) => s.rssMb)),
      pssBaselineMb: median(baseline.map((s) => s.pssMb)),
      pssMaxMb: Math.max(...soak.map((s) => s.pssMb)),
      chromiumBaseline: median(baseline.map((s) => s.chromium)),
      chromiumMax: Math.max(...soak.map((s) => s.chromium)),
      chromiumLeftAfterStop: chromiumLeft.length,
    };
    const rssLimit = figures.rssBaselineMb * 1.2;
    // Renderer processes come and go: a document that runs script is followed by a navigation that
    // may swap its renderer, and a runaway script's renderer is killed and replaced, so at a sampling
    // instant one or two may be starting or exiting. With a baseline of about ten, 20% is 2 anyway;
    // +2 keeps a smaller baseline from failing on that churn, while a leak (one per render) still shows.
    const chromiumLimit = Math.max(figures.chromiumBaseline * 1.2, figures.chromiumBaseline + 2);

    const columns = [
      'phase',
      'renders',
      'seconds',
      'rssMb',
      'pssMb',
      'processes',
      'chromium',
      'awaitingWebhooks',
    ] as const;
    const table = [
      `| ${columns.join(' | ')} |`,
      `|${columns.map(() => '---').join('|')}|`,
      ...samples.map((s) => `| ${columns.map((c) => s[c]).join(' | ')} |`),
    ];
    console.log(
      `${table.join('\n')}\n\n${JSON.stringify({ ...figures, rssLimitMb: Math.round(rssLimit * 10) / 10, chromiumLimit }, null, 2)}`,
    );
    if (errors.length > 0) console.log(`first errors:\n${errors.slice(0, 20).join('\n')}`);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(
      join(root, 'bench/results/soak.json'),
      `${JSON.stringify({ date: new Date().toISOString(), figures, rssLimitMb: rssLimit, chromiumLimit, errors: errors.slice(0, 100), samples }, null, 2)}\n`,
    );

    expect(errors.slice(0, 20)).toEqual([]);
    expect(baseline.length, 'too few samples after warm-up: lower SOAK_SAMPLE_EVERY or SOAK_WARMUP').toBe(
      baselineSamples,
    );
    expect(figures.rssMaxMb, `RSS grew past baseline ${figures.rssBaselineMb} MB + 20%`).toBeLessThanOrEqual(rssLimit);
    expect(
      figures.chromiumMax,
      `Chromium processes grew past baseline ${figures.chromiumBaseline} + max(20%, 2)`,
    ).toBeLessThanOrEqual(chromiumLimit);
    expect(figures.chromiumLeftAfterStop, 'Chromium processes outlived the server').toBe(0);
  },
  20 * 60_000,
);
