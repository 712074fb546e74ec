/**
 * `pdfrender render`: the input edge of the CLI. Flags, files and the --request JSON become render
 * requests (validated by the one schema), the engine renders them, and each PDF is written
 * atomically beside its input, into --out-dir, to -o, or to standard output.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import { checkRequest, createEngine } from '../engine/engine.js';
import { requireBrowser } from '../engine/browser/find-browser.js';
import { engineNetworkOptions } from '../network/policy-settings.js';
import { PdfRenderError } from '../errors.js';
import type { CliIO } from './io.js';
import { planDocuments } from './plan-documents.js';
import { flagFiles, requestFieldsFromFlags, requestOptions } from './request-flags.js';
import { parseRunOptions, runOptionFlags, runOptionsSchema } from './run-options.js';
import { colorLevel, painter } from './color.js';
import { renderAll } from './render-batch.js';
import { readRequestFile, validate } from './request-file.js';
import { createReporter, type DocumentOutcome } from './ui.js';
import { watchAndRender } from './watch.js';

// Where a setting shared with serve means something else here (the CLI reads no environment twins).
const renderHelp: Record<string, string> = {
  allowPrivateNetwork: 'accepted for symmetry with serve: the CLI reaches loopback and private addresses anyway (on)',
};

/** Build the `render` command; its action sets the exit code through `setExitCode`. */
export function renderCommand(io: CliIO, setExitCode: (code: number) => void): Command {
  const command = new Command('render')
    .description('render HTML files to PDF')
    .argument('[inputs...]', 'HTML files, http(s) URLs of pages, or - for standard input')
    .option('-o, --output <file>', 'the PDF for a single input (- for standard output)')
    .option('--out-dir <dir>', 'folder for the PDFs of many inputs (each named after its input)')
    .option(
      '--keep-folders',
      "with --out-dir, keep each input's folder (below the inputs' common folder), so inputs of the same name stay apart",
    )
    .option('--request <file.json>', 'a JSON file in the HTTP API request shape; flags override its fields')
    .option(
      '--watch',
      'render again whenever an input, a header or footer file, the --request file or a local file the documents loaded changes (Ctrl-C stops)',
    );
  for (const option of requestOptions()) command.addOption(option);
  // Commander names an option after its flag (--allow-host -> allowHost); run options are keyed by setting.
  const runAttributes: Record<string, string> = {};
  for (const [name, schema] of Object.entries(runOptionsSchema.shape)) {
    const option = new Option(
      runOptionFlags[name as keyof typeof runOptionFlags],
      renderHelp[name] ?? schema.description?.replace(/ \(env: [^)]*\)/, ''),
    );
    if (name === 'allowHosts') option.argParser((value: string, previous: string[] = []) => [...previous, value]);
    command.addOption(option);
    runAttributes[name] = option.attributeName();
  }
  command
    .option(
      '--json',
      'print a JSON summary (per document: output, pages, bytes, ms, blocked and failed URLs, error) on standard output',
    )
    .option('-q, --quiet', 'print only errors')
    .addHelpText(
      'after',
      `
Lengths take a unit (pt, px, in, mm, cm, pc); without one they are inches.
Relative links in a document (images, stylesheets, fonts) resolve against its own folder.
A document may load files from its own folder (and below) and anything on the network;
--block-network, --allow-host and --disable-javascript narrow that.

Examples:
  pdfrender render invoice.html                  writes invoice.pdf beside it
  pdfrender render page.html -o out.pdf --format A4 --margin 1cm
  pdfrender render *.html --out-dir pdfs/ --concurrency 4
  cat page.html | pdfrender render - > page.pdf
  pdfrender render --request body.json -o out.pdf   replays an HTTP API request body

Exit codes: 0 all rendered, 1 a document failed to render, 2 usage, validation or no browser.`,
    )
    .action(async (inputs: string[], options: Record<string, unknown>) => {
      const run = Object.fromEntries(
        Object.entries(runAttributes).map(([name, attribute]) => [name, options[attribute]]),
      );
      const { debug, color } = command.optsWithGlobals();
      setExitCode(await runRender(io, inputs, { ...options, debug, color }, run));
    });
  return command;
}

async function runRender(
  io: CliIO,
  inputs: string[],
  options: Record<string, unknown>,
  runFlags: Record<string, unknown>,
): Promise<number> {
  if (options.json && options.output === '-')
    throw new PdfRenderError('USAGE', '--json and -o - both want standard output; write the PDF to a file');
  const run = parseRunOptions(runFlags);
  const requestFile = typeof options.request === 'string' ? options.request : undefined;
  // Read again for each --watch round: a header file or the request file may be what changed.
  const readShared = async () => {
    const fromFile = requestFile ? await readRequestFile(resolve(io.cwd, requestFile)) : {};
    const { fields, sources } = await requestFieldsFromFlags(options, io.cwd);
    return { fromFile, shared: { ...fromFile, ...fields }, sources };
  };
  const { fromFile, shared, sources } = await readShared();
  // Validate the shared fields once, before anything renders: a bad flag is one error, not one per file.
  // htmlContent (or url) comes from each input, so a stand-in takes its place here unless the request file has one.
  const network = engineNetworkOptions(run, 'all');
  const document = shared.htmlContent !== undefined || shared.url !== undefined ? {} : { htmlContent: '<p></p>' };
  validate({ ...shared, ...document }, sources, requestFile, (request) =>
    checkRequest(request, { ...network, maxPages: run.maxPages }),
  );

  const documents = await planDocuments({
    inputs,
    output: options.output as string | undefined,
    outDir: options.outDir as string | undefined,
    keepFolders: options.keepFolders === true,
    requestFile,
    requestHasDocument: typeof fromFile.htmlContent === 'string' || typeof fromFile.url === 'string',
    stdoutIsTTY: io.stdoutIsTTY,
    cwd: io.cwd,
  });
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
  const browser = requireBrowser({ chrome: run.chrome, env: io.env });
  const engine = (io.createEngine ?? createEngine)({
    executablePath: browser.executablePath,
    concurrency: run.concurrency,
    timeoutMs: run.timeout,
    maxPages: run.maxPages,
    browserRecycleAfter: run.browserRecycleAfter,
    browserHangTimeoutMs: run.browserHangTimeout,
    // Only a started engine warns, and the reporter exists by then.
    warn: (message) => reporter.warn(message),
    // The CLI renders the user's own files: their folder and the whole network are open by default.
    files: 'document-folder',
    // A --watch round must see a style sheet as it is now, not as the last round loaded it.
    rereadFiles: options.watch === true,
    // Header and footer images follow the same rule (a --request body is often someone else's).
    ...network,
  });
  const mode = options.json ? 'json' : options.quiet ? 'quiet' : 'normal';
  const chalk = painter(colorLevel(options.color as boolean | undefined, io.env, io.stderrIsTTY));
  let reporter = await createReporter(mode, io.stderrIsTTY, io.stdout, io.stderr, chalk);
  try {
    // A browser that cannot start is one set-up error (exit 2), not one failure per document.
    await engine.start();
    if (options.debug) io.stderr.write(`pdfrender: ${browser.executablePath}, ${await engine.sandbox()}\n`);
    // What each document loaded from disk, for --watch; a document that failed keeps what it loaded
    // last time (the script that broke it must stay watched, so that fixing it renders again).
    const loaded: string[][] = documents.map(() => []);
    const round = async (fields: Record<string, unknown>, fieldSources: Record<string, string>) => {
      const started = performance.now();
      const outcomes = await renderAll(io, engine, documents, fields, fieldSources, requestFile, reporter);
      outcomes.forEach(
        (outcome, index) =>
          (loaded[index] = outcome.files ? [...outcome.files, ...missingFiles(outcome)] : loaded[index]!),
      );
      reporter.finish(outcomes, performance.now() - started);
      // Exit 1 when a document failed to render, 2 when one was invalid (an empty file).
      return Math.max(0, ...outcomes.map((o) => o.exitCode));
    };
    const code = await round(shared, sources);
    if (!options.watch) return code;
    await watchAndRender({
      files: () => [
        ...documents.flatMap((document) => (document.source.kind === 'file' ? [document.source.path] : [])),
        ...[...flagFiles(options), ...(requestFile ? [requestFile] : [])].map((file) => resolve(io.cwd, file)),
        ...loaded.flat(),
      ],
      ready: (count) =>
        io.stderr.write(`pdfrender: watching ${count} file${count === 1 ? '' : 's'} for changes (Ctrl-C stops)\n`),
      ...(options.debug
        ? {
            seen: (file: string, counts: boolean) =>
              io.stderr.write(`pdfrender: changed: ${file}${counts ? '' : ' (not part of the documents)'}\n`),
          }
        : {}),
      round: async () => {
        reporter.close();
        reporter = await createReporter(mode, io.stderrIsTTY, io.stdout, io.stderr, chalk);
        // A header or request file that no longer reads is reported, and the watch goes on.
        try {
          const next = await readShared();
          await round(next.shared, next.sources);
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
