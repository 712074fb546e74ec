#!/usr/bin/env node
/**
 * `npm run bench`: measures pdfrender and the alternatives a user would pick instead, side by side
 * in one run on one machine (cases alternate A B A B), and reports medians and ratios: a markdown
 * report on stdout (progress on stderr) and every figure in bench/results/latest.json with the
 * machine it ran on. The budget lines say PASS or MISS; a miss never changes the exit code.
 *
 * The curves (`--only pages`, `--only batches`) are not in the default run: up to 100 pages and 100
 * invoices they took 11 and 6 minutes on 2 shared cores, at full size an estimated 25 and 35, and the
 * pages curve's largest documents take gigabytes of memory each.
 *
 * usage: node bench/run.mjs [--quick] [--no-install] [--only single,batch,server,observability,memory,scale,pages,batches]
 *          [--docs 200] [--rounds N] [--concurrency <cores>] [--out bench/results/latest.json]
 *          [--max-pages-curve 2000] [--max-batch-curve 3000] [--curve-timeout 300] [--max-rss-gb <3/4 of memory>]
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { requireBrowser } from '../dist/engine/browser/find-browser.js';
import { batch } from './cases/batch.mjs';
import { batchCurve, curveBatchSizes } from './cases/batch-curve.mjs';
import { memoryGrowth } from './cases/memory-growth.mjs';
import { curvePages, pagesCurve } from './cases/pages-curve.mjs';
import { scaleOut } from './cases/scale-out.mjs';
import { serverCases } from './cases/server.mjs';
import { observabilityCases } from './cases/observability.mjs';
import { coldPath, singleDocument } from './cases/single-document.mjs';
import { budgetLines } from './lib/budget.mjs';
import { benchDocuments } from './lib/documents.mjs';
import { machineInfo } from './lib/machine.mjs';
import { markdownReport } from './lib/markdown-report.mjs';
import { optionalTools, which } from './lib/optional-tools.mjs';

const defaultSections = ['single', 'batch', 'server', 'observability', 'memory', 'scale'];
const sections = [...defaultSections, 'pages', 'batches'];
const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'no-install': { type: 'boolean', default: false },
    only: { type: 'string', default: defaultSections.join(',') },
    docs: { type: 'string' },
    rounds: { type: 'string' },
    concurrency: { type: 'string', default: String(availableParallelism()) },
    out: { type: 'string' },
    // The curves stop at these sizes (to try them without the largest, which take minutes and gigabytes).
    'max-pages-curve': { type: 'string', default: String(curvePages.at(-1)) },
    'max-batch-curve': { type: 'string', default: String(curveBatchSizes.at(-1)) },
    // Each run of the pages curve is killed after this many seconds, or when its tree's RSS passes this cap.
    'curve-timeout': { type: 'string', default: '300' },
    'max-rss-gb': { type: 'string', default: ((totalmem() / 2 ** 30) * 0.75).toFixed(1) },
  },
});
const root = resolve(import.meta.dirname, '..');
const only = values.only.split(',');
const unknown = only.filter((s) => !sections.includes(s));
if (unknown.length > 0) {
  console.error(`unknown --only section ${unknown.join(', ')}; choose from ${sections.join(', ')}`);
  process.exit(2);
}

// --quick keeps every case but shrinks its work, to finish in under two minutes on 2 cores.
const quick = values.quick;
const concurrency = Number(values.concurrency);
const options = {
  singleRounds: Number(values.rounds ?? (quick ? 1 : 5)),
  coldPathRounds: quick ? 5 : 21,
  batchDocs: Number(values.docs ?? (quick ? 30 : 200)),
  batchRounds: Number(values.rounds ?? (quick ? 1 : 3)),
  reportDocs: quick ? 4 : 20,
  concurrency,
  // render-sync: [connections, requests] per level.
  syncLevels: quick
    ? [
        [1, 20],
        [4, 40],
        [16, 64],
      ]
    : [
        [1, 60],
        [4, 160],
        [16, 320],
      ],
  asyncJobs: quick ? 60 : 200,
  // Rounds of render-async against render-sync at its best level, alternating.
  asyncRounds: Number(values.rounds ?? (quick ? 2 : 3)),
  rawDocs: quick ? 10 : 30,
  observabilityRequests: quick ? 60 : 200,
  observabilityRounds: Number(values.rounds ?? (quick ? 2 : 5)),
  memoryEarly: quick ? 50 : 300,
  memoryLate: quick ? 250 : 3000,
  memoryConnections: 4,
  // scale-out: async jobs per store run (each of 1-3 instances on PostgreSQL and SQLite), and tiny documents rendered by one real instance.
  scaleJobs: quick ? 200 : 1000,
  scaleRounds: Number(values.rounds ?? (quick ? 1 : 3)),
  scaleRenderJobs: quick ? 20 : 100,
  // The curves: alternating rounds of each small size (the large ones run fewer, see the cases).
  curvePages: curvePages.filter((n) => n <= Number(values['max-pages-curve'])),
  curveBatchSizes: curveBatchSizes.filter((n) => n <= Number(values['max-batch-curve'])),
  curveRounds: Number(values.rounds ?? (quick ? 1 : 7)),
  curveTimeoutMs: Number(values['curve-timeout']) * 1000,
  curveMaxRssKb: Number(values['max-rss-gb']) * 2 ** 20,
};

const started = performance.now();
const log = (message) =>
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
const work = await mkdtemp(join(tmpdir(), 'pdfrender-bench-'));
const results = { format: 1, startedAt: new Date().toISOString(), quick, options };
try {
  // pdfrender's own browser (the headless shell where installed), and the full `chromium` that the
  // budget's `chromium --print-to-pdf` names; the shell's own --print-to-pdf is measured beside it.
  const chromiumPath = requireBrowser().executablePath;
  const fullChromiumPath = which('chromium') ?? which('chromium-browser') ?? which('google-chrome') ?? chromiumPath;
  const tools = only.includes('single')
    ? optionalTools({ install: !values['no-install'], log })
    : { wkhtmltopdf: { note: 'not used' }, weasyprint: { note: 'not used' } };
  results.machine = machineInfo({ root, chromiumPath, tools });
  results.machine.printToPdfChromiumPath = fullChromiumPath;
  log(`${results.machine.cores} cores, ${results.machine.chromium}; work in ${work}`);

  if (only.includes('single')) {
    results.singleDocument = await singleDocument({
      root,
      chromiumPath,
      fullChromiumPath,
      tools,
      documents: benchDocuments(root),
      rounds: options.singleRounds,
      warmUp: !quick,
      work,
      log,
    });
    results.coldPath = await coldPath({
      root,
      chromiumPath,
      fullChromiumPath,
      tools,
      documents: benchDocuments(root),
      rounds: options.coldPathRounds,
      work,
      log,
    });
  }
  if (only.includes('batch')) {
    results.batch = await batch({ root, docs: options.batchDocs, concurrency, rounds: options.batchRounds, work, log });
    // Documents that run script take the slow path (a fresh window after each): against the raw loop, which never resets.
    results.scriptBatch = await batch({
      root,
      docs: options.batchDocs,
      concurrency,
      rounds: options.batchRounds,
      work,
      log,
      script: true,
      modes: ['raw reused-page loop, tagged'],
      variants: ['pdfrender'],
    });
    // What tagging costs a long document: the 50-page report, tagged and not, beside both raw loops.
    results.reportBatch = await batch({
      root,
      docs: options.reportDocs,
      concurrency,
      rounds: options.batchRounds,
      work,
      log,
      document: 'report',
      modes: ['raw reused-page loop (reference)', 'raw reused-page loop, tagged'],
      variants: ['pdfrender', 'pdfrender --no-tagged --no-outline'],
    });
  }
  if (only.includes('server')) {
    results.server = await serverCases({
      root,
      work,
      levels: options.syncLevels,
      asyncJobs: options.asyncJobs,
      asyncRounds: options.asyncRounds,
      rawDocs: options.rawDocs,
      log,
    });
  }
  if (only.includes('observability')) {
    results.observability = await observabilityCases({
      root,
      work,
      connections: 2,
      requests: options.observabilityRequests,
      rounds: options.observabilityRounds,
      log,
    });
  }
  if (only.includes('memory')) {
    results.memory = await memoryGrowth({
      root,
      work,
      early: options.memoryEarly,
      late: options.memoryLate,
      connections: options.memoryConnections,
      log,
    });
  }
  if (only.includes('scale')) {
    results.scaleOut = await scaleOut({
      root,
      work,
      jobs: options.scaleJobs,
      rounds: options.scaleRounds,
      renderJobs: options.scaleRenderJobs,
      log,
    });
  }
  if (only.includes('pages')) {
    results.pagesCurve = await pagesCurve({
      root,
      chromiumPath,
      pages: options.curvePages,
      rounds: options.curveRounds,
      timeoutMs: options.curveTimeoutMs,
      maxRssKb: options.curveMaxRssKb,
      work,
      log,
    });
  }
  if (only.includes('batches')) {
    results.batchCurve = await batchCurve({
      root,
      sizes: options.curveBatchSizes,
      concurrency,
      rounds: options.curveRounds,
      work,
      log,
    });
  }
} finally {
  await rm(work, { recursive: true, force: true });
}

results.budget = budgetLines(results);
results.seconds = Math.round((performance.now() - started) / 1000);
results.finishedAt = new Date().toISOString();
const out = resolve(values.out ?? join(root, 'bench/results/latest.json'));
await mkdir(dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(markdownReport(results));
console.log(`\n${results.seconds} s; every figure in ${out}`);
