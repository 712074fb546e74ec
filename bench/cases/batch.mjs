/**
 * Batch, whole process: N copies of the invoice through `pdfrender render --out-dir` and through
 * the raw puppeteer-core loops at the same concurrency, in turn (A B C D A B C D ...). The raw
 * reused-page loop is the reference (the practical floor), tagged for pdfrender's default (tagged,
 * with an outline) and untagged for `--no-tagged --no-outline`; page-per-document and
 * launch-per-document are what a user's own script typically does instead.
 */
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { alternate } from '../lib/alternate.mjs';
import { documentBatch, printFlags } from '../lib/documents.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { median } from '../lib/stats.mjs';

/** The raw-loop.mjs modes compared, by the name they are reported under, with their extra flags. */
export const rawModes = {
  'raw reused-page loop (reference)': ['reused'],
  'raw reused-page loop, tagged': ['reused', '--tagged'],
  'raw page per document': ['page-per-doc'],
  'raw launch per document': ['launch-per-doc'],
};

/** pdfrender's variants, by the name they are reported under: its default (tagged, with an outline) and others. */
export const pdfrenderVariants = {
  pdfrender: [],
  'pdfrender --no-tagged --no-outline': ['--no-tagged', '--no-outline'],
  'pdfrender --pdfa PDF/A-3b': ['--pdfa', 'PDF/A-3b'],
};

/**
 * With `script`, every invoice runs a small script (pdfrender's fresh-window reset after each);
 * `modes` picks the raw loops. Resolves to { docs, concurrency, script, cases: { [name]: { medianMs, docsPerSecond,
 * cpuMsPerDoc, peakRssKb, runs } | { error } } }.
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
  document = 'invoice',
  modes = Object.keys(rawModes),
  variants = Object.keys(pdfrenderVariants),
}) {
  log(`batch: ${docs} ${document}s${script ? ' that run script' : ''}, concurrency ${concurrency}, ${rounds} round(s)`);
  const inputsDir = join(work, `batch-inputs-${document}${script ? '-script' : ''}`);
  const { doc, inputs } = await documentBatch(root, inputsDir, docs, { script, document });
  const commands = {
    ...Object.fromEntries(
      Object.entries(pdfrenderVariants)
        .filter(([name]) => variants.includes(name))
        .map(([name, flags]) => [
          name,
          (out) => [
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
            ...flags,
          ],
        ]),
    ),
    ...Object.fromEntries(
      Object.entries(rawModes)
        .filter(([name]) => modes.includes(name))
        .map(([name, [mode, ...flags]]) => [
          name,
          (out) => [
            join(root, 'bench/raw-loop.mjs'),
            '--mode',
            mode,
            ...flags,
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
        const result = await runProcess(process.execPath, args(out), { treeCpu: true });
        if (name in pdfrenderVariants)
          result.reportMs = JSON.parse(result.stdout).documents.map((d) => d.report.timings.reportMs);
        const pdfs = (await readdir(out)).filter((f) => f.endsWith('.pdf'));
        if (pdfs.length !== docs) throw new Error(`wrote ${pdfs.length} PDFs for ${docs} inputs`);
        // What tagging costs in size shows here: the mean size of the PDFs each case wrote.
        const sizes = await Promise.all(pdfs.map(async (file) => (await stat(join(out, file))).size));
        result.bytesPerDoc = sizes.reduce((sum, size) => sum + size, 0) / sizes.length;
        await rm(out, { recursive: true, force: true });
        return result;
      };
      // A browser per document is an order of magnitude slower (minutes for 200): one round is enough to show it.
      return [name, name === 'raw launch per document' ? { run, rounds: 1 } : run];
    }),
  );
  const measured = await alternate(cases, rounds, log);
  return {
    docs,
    document,
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
            // CPU of the whole tree (Node and every Chromium process) per document, where a cgroup could be made.
            ...(runs.every((r) => r.cpuMs !== undefined) && { cpuMsPerDoc: median(runs.map((r) => r.cpuMs)) / docs }),
            bytesPerDoc: median(runs.map((r) => r.bytesPerDoc)),
            runs: runs.map((r) => Math.round(r.ms)),
            cpuRuns: runs.map((r) => r.cpuMs && Math.round(r.cpuMs)),
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
