/**
 * Batch, whole process: N copies of the invoice through `pdfrender render --out-dir` and through
 * the raw puppeteer-core loops at the same concurrency, in turn (A B C D A B C D ...). The raw
 * reused-page loop is the reference (the practical floor); page-per-document and
 * launch-per-document are what a user's own script typically does instead.
 */
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { alternate } from '../lib/alternate.mjs';
import { invoiceBatch, printFlags } from '../lib/documents.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { median } from '../lib/stats.mjs';

/** The raw-loop.mjs modes compared, by the name they are reported under. */
export const rawModes = {
  'raw reused-page loop (reference)': 'reused',
  'raw page per document': 'page-per-doc',
  'raw launch per document': 'launch-per-doc',
};

/**
 * With `script`, every invoice runs a small script (pdfrender's fresh-window reset after each);
 * `modes` picks the raw loops. Resolves to { docs, concurrency, script, cases: { [name]: { medianMs, docsPerSecond, peakRssKb, runs } | { error } } }.
 * A run that does not leave one PDF per input counts as failed.
 */
export async function batch({
  root,
  docs,
  concurrency,
  rounds,
  work,
  log,
  script = false,
  modes = Object.keys(rawModes),
}) {
  log(`batch: ${docs} invoices${script ? ' that run script' : ''}, concurrency ${concurrency}, ${rounds} round(s)`);
  const { doc, inputs } = await invoiceBatch(root, join(work, 'batch-inputs'), docs, { script });
  const commands = {
    pdfrender: (out) => [
      join(root, 'bin/pdfrender.js'),
      'render',
      ...inputs,
      '--out-dir',
      out,
      '--concurrency',
      String(concurrency),
      // The JSON summary has each document's preflight report, whose timings give the report's own cost.
      '--json',
      ...printFlags(doc),
    ],
    ...Object.fromEntries(
      Object.entries(rawModes)
        .filter(([name]) => modes.includes(name))
        .map(([name, mode]) => [
          name,
          (out) => [
            join(root, 'bench/raw-loop.mjs'),
            '--mode',
            mode,
            '--out-dir',
            out,
            '--concurrency',
            String(concurrency),
            ...printFlags(doc),
            ...inputs,
          ],
        ]),
    ),
  };
  const cases = Object.fromEntries(
    Object.entries(commands).map(([name, args]) => {
      const run = async () => {
        const out = join(work, 'batch-out', name.replace(/\W+/g, '-'));
        await rm(out, { recursive: true, force: true });
        await mkdir(out, { recursive: true });
        const result = await runProcess(process.execPath, args(out));
        const written = (await readdir(out)).filter((f) => f.endsWith('.pdf')).length;
        if (written !== docs) throw new Error(`wrote ${written} PDFs for ${docs} inputs`);
        await rm(out, { recursive: true, force: true });
        if (name === 'pdfrender')
          result.reportMs = JSON.parse(result.stdout).documents.map((d) => d.report.timings.reportMs);
        return result;
      };
      // A browser per document is an order of magnitude slower (minutes for 200): one round is enough to show it.
      return [name, name === 'raw launch per document' ? { run, rounds: 1 } : run];
    }),
  );
  const measured = await alternate(cases, rounds, log);
  return {
    docs,
    concurrency,
    script,
    cases: Object.fromEntries(
      Object.entries(measured).map(([name, { runs, error }]) => {
        if (error) return [name, { error }];
        const ms = median(runs.map((r) => r.ms));
        return [
          name,
          {
            medianMs: ms,
            docsPerSecond: docs / (ms / 1000),
            peakRssKb: median(runs.map((r) => r.peakRssKb)),
            runs: runs.map((r) => Math.round(r.ms)),
            // pdfrender's preflight report (on in every render): its checks' time per document, a mean (a cost per
            // document is a total shared out; each document's figure is rounded to whole ms).
            ...(runs[0].reportMs && {
              reportMsPerDoc: runs.flatMap((r) => r.reportMs).reduce((sum, ms, _, all) => sum + ms / all.length, 0),
            }),
          },
        ];
      }),
    ),
  };
}
