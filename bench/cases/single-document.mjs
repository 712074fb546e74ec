/**
 * Single document, cold, whole process: one command renders one document and exits, browser start
 * included, for each tool a user might pick instead of pdfrender, in turn (A B C ...).
 *
 * Same work where the tools allow it: Letter paper, the document's margins, its header and footer
 * where the tool takes HTML templates (pdfrender, puppeteer). `chromium --print-to-pdf` cannot take
 * templates or margins (it runs with --no-pdf-header-footer, its CSS default margins), nor can
 * wkhtmltopdf (Debian's build has no patched Qt) or weasyprint (CSS margin boxes only), so they
 * print the invoice without its header and footer, which favours them. The page count of every
 * output is checked and reported, so a tool that printed something else shows.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countPdfPages } from '../../dist/engine/pages/page-count.js';
import { alternate } from '../lib/alternate.mjs';
import { printFlags } from '../lib/documents.mjs';
import { runProcess } from '../lib/run-process.mjs';
import { median } from '../lib/stats.mjs';

/** pdfrender untagged with NODE_EXTRA_CA_CERTS unset, by the name budget.mjs looks it up by. */
export const untaggedPdfrender = 'pdfrender --no-tagged --no-outline, NODE_EXTRA_CA_CERTS unset';

/** The command line (and any environment changes) of each tool for `doc`, writing `out`; tools that are skipped carry a note instead. */
export function toolCommands({ root, chromiumPath, fullChromiumPath, tools, work }) {
  const node = process.execPath;
  const noSandbox = process.getuid?.() === 0 ? ['--no-sandbox'] : []; // root cannot use Chromium's sandbox
  const pdfrender = (doc, out) => [
    node,
    [join(root, 'bin/pdfrender.js'), 'render', doc.file, '-o', out, '-q', ...printFlags(doc)],
  ];
  return {
    pdfrender,
    // Node reads and parses the whole bundle NODE_EXTRA_CA_CERTS names as it starts, before a line of
    // pdfrender runs (~65 ms on the bench machine, whose environment sets it), and `render` makes no
    // TLS connection of its own (Chromium does, through the egress proxy's tunnel). Shown beside the
    // budget's figure, which keeps the environment as it is.
    ...(process.env.NODE_EXTRA_CA_CERTS
      ? {
          'pdfrender, NODE_EXTRA_CA_CERTS unset': (doc, out) => [
            ...pdfrender(doc, out),
            { NODE_EXTRA_CA_CERTS: undefined },
          ],
        }
      : {}),
    // Untagged, without the environment's cost: what the cold-path target (1.1 x the shell, both untagged) is held to.
    [untaggedPdfrender]: (doc, out) => {
      const [program, args] = pdfrender(doc, out);
      return [program, [...args, '--no-tagged', '--no-outline'], { NODE_EXTRA_CA_CERTS: undefined }];
    },
    'chromium --print-to-pdf': (doc, out) => [
      fullChromiumPath,
      ['--headless', ...noSandbox, '--no-pdf-header-footer', `--print-to-pdf=${out}`, pathToFileURL(doc.file).href],
    ],
    // The headless shell pdfrender itself drives, when that is not the full browser above.
    ...(chromiumPath !== fullChromiumPath
      ? {
          [`${basename(chromiumPath)} --print-to-pdf`]: (doc, out) => [
            chromiumPath,
            [...noSandbox, '--no-pdf-header-footer', `--print-to-pdf=${out}`, pathToFileURL(doc.file).href],
          ],
          // The shell tags its PDF unless told not to: this is the untagged line's rival.
          [`${basename(chromiumPath)} --print-to-pdf --disable-pdf-tagging`]: (doc, out) => [
            chromiumPath,
            [
              ...noSandbox,
              '--no-pdf-header-footer',
              '--disable-pdf-tagging',
              `--print-to-pdf=${out}`,
              pathToFileURL(doc.file).href,
            ],
          ],
        }
      : {}),
    'puppeteer, launch per document': (doc, out) => [
      node,
      [
        join(root, 'bench/raw-loop.mjs'),
        '--mode',
        'launch-per-doc',
        '--stock',
        '--out-dir',
        dirname(out),
        ...printFlags(doc),
        doc.file,
      ],
    ],
    wkhtmltopdf: tools.wkhtmltopdf.path
      ? (doc, out) => [
          tools.wkhtmltopdf.path,
          [
            '-q',
            '--enable-local-file-access',
            '--page-size',
            'Letter',
            '-T',
            doc.marginTop,
            '-B',
            doc.marginBottom,
            '-L',
            '0.39in',
            '-R',
            '0.39in',
            doc.file,
            out,
          ],
        ]
      : tools.wkhtmltopdf.note,
    weasyprint: tools.weasyprint.path
      ? (doc, out) => [tools.weasyprint.path, ['-q', '-s', join(work, `page-${doc.name}.css`), doc.file, out]]
      : tools.weasyprint.note,
  };
}

/**
 * Runs every tool on every document for `rounds` rounds, after one untimed warm-up run each when
 * `warmUp` is set (so the first tool does not pay for a cold disk cache). Resolves to
 * { [doc]: { [tool]: { medianMs, cpuMs, peakRssKb, pages, runs, cpuRuns } | { skipped } | { error } } }.
 */
export async function singleDocument({
  root,
  chromiumPath,
  fullChromiumPath,
  tools,
  documents,
  rounds,
  warmUp,
  work,
  log,
}) {
  // weasyprint takes paper size and margins from CSS only: a user stylesheet per document.
  for (const doc of documents)
    await writeFile(
      join(work, `page-${doc.name}.css`),
      `@page { size: 8.5in 11in; margin: ${doc.marginTop} 0.39in ${doc.marginBottom}; }\n`,
    );
  const commands = toolCommands({ root, chromiumPath, fullChromiumPath, tools, work });
  const results = {};
  for (const doc of documents) {
    log(`single document, cold: ${doc.name}`);
    const cases = {};
    for (const [tool, command] of Object.entries(commands)) {
      if (typeof command !== 'function') continue;
      const dir = join(work, 'single', doc.name, tool.replace(/\W+/g, '-'));
      cases[tool] = async () => {
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        // raw-loop names its output after the input, so every tool is given that name.
        const out = join(dir, `${basename(doc.file, '.html')}.pdf`);
        const [program, args, env] = command(doc, out);
        const run = await runProcess(program, args, { env, treeCpu: true });
        return { ...run, pages: countPdfPages(await readFile(out)) };
      };
    }
    if (warmUp && doc === documents[0]) await alternate(cases, 1, () => {}); // warm-up, untimed
    const measured = await alternate(cases, rounds, log);
    results[doc.name] = Object.fromEntries(
      Object.entries(commands).map(([tool, command]) => {
        if (typeof command !== 'function') return [tool, { skipped: command }];
        const { runs, error } = measured[tool];
        if (error) return [tool, { error }];
        return [
          tool,
          {
            medianMs: median(runs.map((r) => r.ms)),
            // CPU of the whole tree (Node and every Chromium process): the figure that holds on a busy machine.
            ...(runs.every((r) => r.cpuMs !== undefined) && { cpuMs: median(runs.map((r) => r.cpuMs)) }),
            peakRssKb: median(runs.map((r) => r.peakRssKb)),
            pages: runs[0].pages,
            pagesExpected: doc.pages,
            runs: runs.map((r) => Math.round(r.ms)),
            cpuRuns: runs.map((r) => r.cpuMs && Math.round(r.cpuMs)),
          },
        ];
      }),
    );
  }
  return results;
}

/**
 * Issue 31's cold-path target on its own: the letter, untagged, by pdfrender (NODE_EXTRA_CA_CERTS
 * unset) and by the headless shell's own --print-to-pdf --disable-pdf-tagging, only these two, in
 * `rounds` alternating rounds. Five rounds among nine tools moved the ratio by 0.2 from run to run
 * (one run's pdfrender: 425 to 542 ms of CPU); the median of many pairs holds. Resolves to
 * { [tool]: { cpuMs, medianMs, cpuRuns } } for the two, or {} without a headless shell.
 */
export async function coldPath({ root, chromiumPath, fullChromiumPath, tools, documents, rounds, work, log }) {
  const commands = toolCommands({ root, chromiumPath, fullChromiumPath, tools, work });
  const shell = Object.keys(commands).find((tool) => tool.endsWith('--print-to-pdf --disable-pdf-tagging'));
  const letter = documents.find((doc) => doc.name === 'letter');
  if (!shell || !letter) return {};
  log(`cold path: the letter, untagged, pdfrender against ${shell}, ${rounds} alternating rounds`);
  const cases = Object.fromEntries(
    [untaggedPdfrender, shell].map((tool) => [
      tool,
      async () => {
        const dir = join(work, 'cold-path', tool.replace(/\W+/g, '-'));
        await rm(dir, { recursive: true, force: true });
        await mkdir(dir, { recursive: true });
        const [program, args, env] = commands[tool](letter, join(dir, 'letter.pdf'));
        return runProcess(program, args, { env, treeCpu: true });
      },
    ]),
  );
  const measured = await alternate(cases, rounds, () => {});
  return Object.fromEntries(
    Object.entries(measured).map(([tool, { runs, error }]) => [
      tool,
      error
        ? { error }
        : {
            ...(runs.every((r) => r.cpuMs !== undefined) && { cpuMs: median(runs.map((r) => r.cpuMs)) }),
            medianMs: median(runs.map((r) => r.ms)),
            cpuRuns: runs.map((r) => r.cpuMs && Math.round(r.cpuMs)),
          },
    ]),
  );
}
