/**
 * `pdfrender render`: the input edge of the CLI. Flags, files and the --request JSON become render
 * requests (validated by the one schema), the engine renders them, and each PDF is written
 * atomically beside its input, into --out-dir, to -o, or to standard output.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, type OptionValues } from 'commander';
import type { z } from 'zod';
import { checkRequest, createEngine } from '../../engine/engine.js';
import { requireBrowser } from '../../engine/browser/find-browser.js';
import { engineNetworkOptions } from '../../network/policy-settings.js';
import { PdfRenderError } from '../../errors.js';
import { parseWith } from '../../request.js';
import type { CliIO } from '../io.js';
import { gatherProblems } from './gather-problems.js';
import { planDocuments } from './plan-documents.js';
import { flagFiles, requestFieldsFromFlags, requestOptions } from './request-flags.js';
import { runFlags } from '../run-options.js';
import { globalFlagValues, renderFlags } from './render-flags.js';
import { colorLevel, painter } from '../color.js';
import { renderAll } from './render-batch.js';
import { cliFileAccess } from './asset-folders.js';
import { readRequestFile, underFlags, validate } from './request-file.js';
import { createReporter, type DocumentOutcome } from './ui.js';
import { watchAndRender } from './watch.js';

/** Build the `render` command; its action sets the exit code through `setExitCode`. */
export function renderCommand(io: CliIO, setExitCode: (code: number) => void): Command {
  const command = new Command('render')
    .description('render HTML files to PDF')
    .argument('[inputs...]', 'HTML files, http(s) URLs of pages, or - for standard input');
  // Help lists where documents come from and go, what they are rendered with, then how the run reports.
  const options = [
    ...renderFlags.options(['output', 'outDir', 'keepFolders', 'request', 'watch', 'assetsDir']),
    ...requestOptions(),
    ...runFlags.options(),
    ...renderFlags.options(['json', 'quiet']),
  ];
  for (const option of options) command.addOption(option);
  command
    .addHelpText(
      'after',
      `
Lengths take a unit (pt, px, in, mm, cm, pc); without one they are inches.
Relative links in a document (images, stylesheets, fonts) resolve against its own folder,
and those of a --header or --footer file against that file's folder.
A document may load files from its own folder (and below), from each --assets-dir, and anything
on the network; --block-network, --allow-host and --disable-javascript narrow that.

Examples:
  pdfrender render invoice.html                  writes invoice.pdf beside it
  pdfrender render page.html -o out.pdf --format A4 --margin 1cm
  pdfrender render *.html --out-dir pdfs/ --concurrency 4
  cat page.html | pdfrender render - > page.pdf
  pdfrender render --request body.json -o out.pdf   replays an HTTP API request body

Exit codes: 0 all rendered, 1 a document failed to render, 2 usage, validation or no browser.`,
    )
    .action(async (inputs: string[], parsed: OptionValues) => {
      setExitCode(await runRender(io, inputs, parsed, parseWith(globalFlagValues, command.optsWithGlobals())));
    });
  return command;
}

// `parsed` is commander's options: render's own flags, the request flags and the run options, each read by its declaration.
async function runRender(
  io: CliIO,
  inputs: string[],
  parsed: OptionValues,
  { debug, color }: z.output<typeof globalFlagValues>,
): Promise<number> {
  const options = renderFlags.read(parsed);
  if (options.json && options.output === '-')
    throw new PdfRenderError('USAGE', '--json and -o - both want standard output; write the PDF to a file');
  const run = runFlags.read(parsed);
  const requestFile = options.request;
  // Read again for each --watch round: a header file or the request file may be what changed.
  const readShared = async () => {
    const fromFile = requestFile ? await readRequestFile(resolve(io.cwd, requestFile)) : {};
    const { fields, sources, templateUrls } = await requestFieldsFromFlags(parsed, io.cwd);
    return { fromFile, shared: underFlags(fromFile, fields), sources, templateUrls };
  };
  const { fromFile, shared, sources, templateUrls } = await readShared();
  // Validate the shared fields once, before anything renders: a bad flag is one error, not one per file.
  // htmlContent (or url) comes from each input, so a stand-in takes its place here unless the request file has one.
  const network = engineNetworkOptions(run, 'all');
  const document = shared.htmlContent !== undefined || shared.url !== undefined ? {} : { htmlContent: '<p></p>' };
  // Bad fields and bad inputs are reported together: one does not hide the other.
  const [, documents] = await gatherProblems([
    Promise.resolve().then(() =>
      validate({ ...shared, ...document }, sources, requestFile, (request) =>
        checkRequest(request, { ...network, maxPages: run.maxPages }),
      ),
    ),
    planDocuments({
      inputs,
      output: options.output,
      outDir: options.outDir,
      keepFolders: options.keepFolders,
      requestFile,
      requestHasDocument: typeof fromFile.htmlContent === 'string' || typeof fromFile.url === 'string',
      stdoutIsTTY: io.stdoutIsTTY,
      cwd: io.cwd,
    }),
  ]);
  if (
    options.watch &&
    documents.some((document) => document.source.kind === 'stdin' || document.destination.kind === 'stdout')
  ) {
    throw new PdfRenderError(
      'USAGE',
      '--watch renders files to files: standard input cannot be read again, and standard output takes one PDF',
    );
  }
  if (options.watch && !documents.some((document) => document.source.kind === 'file')) {
    throw new PdfRenderError('USAGE', '--watch needs an HTML file among the inputs: there is nothing on disk to watch');
  }
  const files = await cliFileAccess(options.assetsDir, io.cwd);
  const browser = requireBrowser({ chrome: run.chrome, env: io.env });
  const engine = (io.createEngine ?? createEngine)({
    executablePath: browser.executablePath,
    concurrency: run.concurrency,
    timeoutMs: run.timeout,
    maxPages: run.maxPages,
    maxRenderMemory: run.maxRenderMemory,
    // A batch's document stopped for the memory others held renders once they are done, rather than fail.
    waitForMemory: true,
    // Every document is the user's own: the network service may run in the browser process.
    oneCaller: true,
    browserRecycleAfter: run.browserRecycleAfter,
    browserHangTimeoutMs: run.browserHangTimeout,
    // Only a started engine warns, and the reporter exists by then.
    warn: (message) => reporter.warn(message),
    // The CLI renders the user's own files: their folder (and --assets-dir) and the whole network are open by default.
    files,
    // A --watch round must see a style sheet as it is now, not as the last round loaded it.
    rereadFiles: options.watch,
    // Header and footer images follow the same rule (a --request body is often someone else's).
    ...network,
  });
  const mode = options.json ? 'json' : options.quiet ? 'quiet' : 'normal';
  const chalk = painter(colorLevel(color, io.env, io.stderrIsTTY));
  const spinner = io.stderrIsTTY && io.stderrWidthKnown !== false;
  let reporter = await createReporter(mode, spinner, io.stdout, io.stderr, chalk);
  try {
    // A browser that cannot start is one set-up error (exit 2), not one failure per document.
    await engine.start();
    if (debug) io.stderr.write(`pdfrender: ${browser.executablePath}, ${await engine.sandbox()}\n`);
    // What each document loaded from disk, for --watch; a document that failed keeps what it loaded
    // last time (the script that broke it must stay watched, so that fixing it renders again).
    const loaded: string[][] = documents.map(() => []);
    const round = async (
      fields: Record<string, unknown>,
      fieldSources: Record<string, string>,
      urls: typeof templateUrls,
    ) => {
      const started = performance.now();
      const outcomes = await renderAll(
        io,
        engine,
        documents,
        fields,
        fieldSources,
        requestFile,
        reporter,
        urls,
        !options.watch,
      );
      outcomes.forEach(
        (outcome, index) =>
          (loaded[index] = outcome.files ? [...outcome.files, ...missingFiles(outcome)] : loaded[index]!),
      );
      reporter.finish(outcomes, performance.now() - started);
      // Exit 1 when a document failed to render, 2 when one was invalid (an empty file).
      return Math.max(0, ...outcomes.map((o) => o.exitCode));
    };
    const code = await round(shared, sources, templateUrls);
    if (!options.watch) return code;
    await watchAndRender({
      files: () => [
        ...documents.flatMap((document) => (document.source.kind === 'file' ? [document.source.path] : [])),
        ...[...flagFiles(parsed), ...(requestFile ? [requestFile] : [])].map((file) => resolve(io.cwd, file)),
        ...loaded.flat(),
      ],
      ready: (count) =>
        io.stderr.write(`pdfrender: watching ${count} file${count === 1 ? '' : 's'} for changes (Ctrl-C stops)\n`),
      ...(debug
        ? {
            seen: (file: string, counts: boolean) =>
              io.stderr.write(`pdfrender: changed: ${file}${counts ? '' : ' (not part of the documents)'}\n`),
          }
        : {}),
      round: async () => {
        // An input gone (deleted, or moved away by a build) is waited for, not failed: its folder is
        // still watched, and the round runs again when it is back.
        const removed = documents.filter(
          (document) => document.source.kind === 'file' && !existsSync(document.source.path),
        );
        if (removed.length > 0) {
          for (const document of removed) io.stderr.write(`pdfrender: ${document.label}: input removed, waiting\n`);
          return;
        }
        reporter.close();
        reporter = await createReporter(mode, spinner, io.stdout, io.stderr, chalk);
        // A header or request file that no longer reads is reported, and the watch goes on.
        try {
          const next = await readShared();
          await round(next.shared, next.sources, next.templateUrls);
        } catch (error) {
          if (!io.signal.aborted)
            io.stderr.write(`${chalk.red('pdfrender:')} ${error instanceof Error ? error.message : String(error)}\n`);
        }
      },
      signal: io.signal,
    });
    return 0;
  } finally {
    reporter.close();
    // Every PDF is written by now (or the run was stopped): the browser can simply be killed.
    await engine.close({ kill: true });
  }
}

// A local file that failed to load (not there yet) counts for --watch too: making it renders again.
function missingFiles(outcome: DocumentOutcome): string[] {
  return (outcome.failed ?? [])
    .filter((issue) => issue.url.startsWith('file:'))
    .map((issue) => fileURLToPath(issue.url));
}
