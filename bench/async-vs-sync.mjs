#!/usr/bin/env node
/**
 * Server throughput, sync against async, on N invoices: a real `pdfrender serve` on loopback,
 * render-sync at the engine's concurrency, then render-async from first enqueue to last webhook
 * (a local receiver). Prints jobs per second for both; never fails on a time.
 *
 * usage: node bench/async-vs-sync.mjs [--docs 200]
 */
import { execFileSync, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '200' } } });
const docs = Number(values.docs);
const root = resolve(import.meta.dirname, '..');
const bin = join(root, 'bin/pdfrender.js');
const dataDir = await mkdtemp(join(tmpdir(), 'pdfrender-bench-'));
const fixture = join(root, 'fixtures/invoice');
// The invoice with its stylesheet inlined, since the server renders a body, not a folder.
const css = await readFile(join(fixture, 'invoice.css'), 'utf8');
const htmlContent = (await readFile(join(fixture, 'invoice.html'), 'utf8')).replace('<link rel="stylesheet" href="invoice.css">', `<style>${css}</style>`);
const body = { htmlContent, footerHtmlContent: await readFile(join(fixture, 'footer.html'), 'utf8'), marginBottom: '0.8in', marginTop: '0.8in' };

let delivered = 0;
let allDelivered;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(204).end();
    if (++delivered === docs) allDelivered();
  });
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
execFileSync(process.execPath, [bin, 'webhooks', 'add', `http://127.0.0.1:${receiver.address().port}/`, '--data-dir', dataDir]);
const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir, '--rate-limit', '100000', '--log-format', 'json'], { stdio: ['ignore', 'ignore', 'pipe'] });
const url = await new Promise((r) => {
  let text = '';
  server.stderr.on('data', (c) => {
    text += c;
    const m = /listening on (\S+)/.exec(text);
    if (m) r(m[1]);
  });
});
const post = (path, extra = {}) => fetch(`${url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...body, ...extra }) });

// Warm up the pages.
await Promise.all([post('/api/pdfs/render-sync'), post('/api/pdfs/render-sync')]);

const concurrency = availableParallelism();
let next = 0;
let started = performance.now();
await Promise.all(Array.from({ length: concurrency }, async () => {
  while (next++ < docs) (await post('/api/pdfs/render-sync')).status === 200 || console.error('sync request failed');
}));
const syncRate = docs / ((performance.now() - started) / 1000);

const done = new Promise((r) => (allDelivered = r));
started = performance.now();
for (let i = 0; i < docs; i += 1) (await post('/api/pdfs/render-async', { identifier: `bench-${i}` })).status === 202 || console.error('async request failed');
await done;
const asyncRate = docs / ((performance.now() - started) / 1000);

console.log(`${docs} invoices, ${concurrency} cores, Chromium via pdfrender serve`);
console.log(`| mode | jobs/s |\n|---|---|\n| render-sync, ${concurrency} clients | ${syncRate.toFixed(1)} |\n| render-async, enqueue to last webhook | ${asyncRate.toFixed(1)} |`);
console.log(`async / sync = ${(asyncRate / syncRate).toFixed(2)}`);
server.kill('SIGTERM');
receiver.close();
await new Promise((r) => server.on('close', r));
await rm(dataDir, { recursive: true, force: true });
