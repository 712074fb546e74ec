/**
 * The pages curve, cold, whole process: the report and one long table at growing page counts,
 * each through `pdfrender render` (its defaults, and untagged), the headless shell's own
 * --print-to-pdf (tagged, its default, and untagged) and a minimal puppeteer-core script (launch,
 * newPage, goto, pdf), with the CPU time and peak RSS of each whole process tree and the PDF's
 * size and pages. Large documents are what can take a machine down, so the runs go strictly one
 * at a time, each with a timeout and an RSS cap at which the bench kills it; a tool that fails
 * (its own error, the timeout or the cap) is a row with its reason, and is not run again on a
 * larger page count of that document.
 */
import { mkdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countPdfPages } from '../../dist/engine/pages/page-count.js';
import { alternate } from '../lib/alternate.mjs';
import { curveDocument } from '../lib/curve-documents.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { median } from '../lib/stats.mjs';

/** The page counts of the curve, and the documents drawn along it. */
export const curvePages = [1, 10, 100, 500, 1000, 2000];
export const curveDocuments = ['report', 'long table'];

/** Each tool's command line for `file`, writing `out` (all print Letter at their default margins). */
function toolCommands(root, chromiumPath, timeoutMs) {
  const node = process.execPath;
  const noSandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : []; // root cannot use Chromium's sandbox
  const pdfrender =
    (...flags) =>
    (file, out) => [
      node,
      // Its own deadline as long as the bench's (the default 30 s is a server's guard, not what a
      // curve of large documents measures); its memory limit stays the default.
      [join(root, 'bin/pdfrender.js'), 'render', file, '-o', out, '-q', '--timeout', `${timeoutMs}ms`, ...flags],
    ];
  const shell =
    (...flags) =>
    (file, out) => [
      chromiumPath,
      [...noSandbox, '--no-pdf-header-footer', ...flags, `--print-to-pdf=${out}`, pathToFileURL(file).href],
    ];
  return {
    pdfrender: pdfrender(),
    'pdfrender --no-tagged --no-outline': pdfrender('--no-tagged', '--no-outline'),
    // The shell writes a tagged PDF (without an outline) unless told not to.
    'headless shell --print-to-pdf': shell(),
    'headless shell --print-to-pdf --disable-pdf-tagging': shell('--disable-pdf-tagging'),
    // raw-loop.mjs's launch-per-doc --stock is that minimal script: puppeteer's defaults (tagged), no deadline.
    'puppeteer-core script': (file, out) => [
      node,
      [join(root, 'bench/raw-loop.mjs'), '--mode', 'launch-per-doc', '--stock', '--out-dir', join(out, '..'), file],
    ],
  };
}

/** Median of a figure over runs, or undefined where a run lacked it (no cgroup for CPU). */
const mid = (runs, key) => (runs.every((r) => r[key] !== undefined) ? median(runs.map((r) => r[key])) : undefined);

/**
 * Runs the curve for `pages` (a subset of curvePages): `rounds` alternating rounds (A B C ...) up to
 * 100 pages, one above (a run of a large document takes up to a minute and gigabytes). Resolves to
 * { pages, timeoutMs, maxRssKb, documents: { [doc]: { [pages]: { [tool]: row } } } }, a row being
 * { medianMs, cpuMs, peakRssKb, bytes, pages, runs } or { error, ms, cpuMs, peakRssKb } or { skipped }.
 */
export async function pagesCurve({ root, chromiumPath, pages, rounds, timeoutMs, maxRssKb, work, log }) {
  const commands = toolCommands(root, chromiumPath, timeoutMs);
  const documents = {};
  for (const kind of curveDocuments) {
    documents[kind] = {};
    const failedAt = {};
    for (const count of pages) {
      const dir = join(work, 'pages-curve', kind.replace(/\W+/g, '-'));
      await mkdir(dir, { recursive: true });
      const file = await curveDocument(root, dir, kind, count);
      const own = count <= 100 ? rounds : 1;
      log(`pages curve: ${kind}, ${count} pages, ${own} round(s)`);
      const cases = {};
      for (const [tool, command] of Object.entries(commands)) {
        if (failedAt[tool]) continue;
        cases[tool] = async () => {
          const out = join(
            work,
            'pages-curve',
            'out',
            tool.replace(/\W+/g, '-'),
            `${kind.replace(/\W+/g, '-')}-${count}.pdf`,
          );
          await rm(join(out, '..'), { recursive: true, force: true });
          await mkdir(join(out, '..'), { recursive: true });
          const [program, args] = command(file, out);
          try {
            const run = await runProcess(program, args, { timeoutMs, treeCpu: true, maxRssKb });
            const pdf = await readFile(out);
            return { ...run, bytes: (await stat(out)).size, pages: countPdfPages(pdf) };
          } catch (error) {
            // What the failed run used, kept for its row (alternate() keeps only the message).
            failedAt[tool] = {
              count,
              reason: error.reason,
              ms: error.ms,
              cpuMs: error.cpuMs,
              peakRssKb: error.peakRssKb,
            };
            throw error;
          }
        };
      }
      const measured = await alternate(cases, own, log);
      documents[kind][count] = Object.fromEntries(
        Object.keys(commands).map((tool) => {
          const failed = failedAt[tool];
          if (failed && failed.count < count) return [tool, { skipped: `failed at ${failed.count} pages` }];
          if (measured[tool]?.error) {
            const { reason, ms, cpuMs, peakRssKb } = failed ?? {};
            return [tool, { error: reason ?? measured[tool].error, ms, cpuMs, peakRssKb }];
          }
          const { runs } = measured[tool];
          return [
            tool,
            {
              medianMs: median(runs.map((r) => r.ms)),
              cpuMs: mid(runs, 'cpuMs'),
              peakRssKb: median(runs.map((r) => r.peakRssKb)),
              bytes: runs[0].bytes,
              pages: runs[0].pages,
              runs: runs.map((r) => ({ ms: Math.round(r.ms), cpuMs: r.cpuMs && Math.round(r.cpuMs) })),
            },
          ];
        }),
      );
      await rm(file);
    }
  }
  return { pages, rounds, timeoutMs, maxRssKb, documents };
}
