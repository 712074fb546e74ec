#!/usr/bin/env node
/**
 * Batch throughput, whole process: `pdfrender render --out-dir` against the raw reference loop
 * (raw-loop.mjs) on N copies of the invoice fixture, alternating A B A B so both see the same
 * machine. Prints medians and the ratio; never fails on a time.
 *
 * usage: node bench/batch.mjs [--docs 100] [--rounds 3] [--concurrency 2]
 */
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { docs: { type: 'string', default: '100' }, rounds: { type: 'string', default: '3' }, concurrency: { type: 'string', default: String(availableParallelism()) } },
});
const docs = Number(values.docs);
const rounds = Number(values.rounds);
const concurrency = values.concurrency;
const root = resolve(import.meta.dirname, '..');
const work = await mkdtemp(join(tmpdir(), 'pdfrender-bench-'));
await cp(join(root, 'fixtures/invoice'), work, { recursive: true });
const inputs = [];
for (let i = 0; i < docs; i += 1) {
  const name = join(work, `invoice-${String(i).padStart(4, '0')}.html`);
  await cp(join(work, 'invoice.html'), name);
  inputs.push(name);
}
const header = join(work, 'header.html');
const footer = join(work, 'footer.html');

const cases = {
  pdfrender: (out) => [join(root, 'bin/pdfrender.js'), 'render', ...inputs, '--out-dir', out, '--concurrency', concurrency, '--header', header, '--footer', footer, '--margin-top', '0.8in', '--margin-bottom', '0.8in', '-q'],
  'raw reused-page loop': (out) => [join(root, 'bench/raw-loop.mjs'), out, concurrency, header, footer, ...inputs],
};
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round += 1) {
  for (const [name, args] of Object.entries(cases)) {
    const out = join(work, `out-${round}-${name.replace(/\W+/g, '-')}`);
    await mkdir(out);
    const started = performance.now();
    execFileSync(process.execPath, args(out), { stdio: 'inherit' });
    times[name].push(performance.now() - started);
    await rm(out, { recursive: true });
  }
}
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
console.log(`\n${docs} invoices, concurrency ${concurrency}, ${rounds} rounds, ${availableParallelism()} cores`);
console.log('| case | median wall time | docs/s |');
console.log('|---|---|---|');
for (const [name, list] of Object.entries(times)) console.log(`| ${name} | ${(median(list) / 1000).toFixed(2)} s | ${(docs / (median(list) / 1000)).toFixed(1)} |`);
const ratio = median(times['raw reused-page loop']) / median(times.pdfrender);
console.log(`\npdfrender throughput = ${ratio.toFixed(2)} x the raw reused-page loop`);
await rm(work, { recursive: true, force: true });
