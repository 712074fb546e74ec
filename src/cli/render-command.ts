/**
 * `pdfrender render`: the input edge of the CLI. Flags, files and the --request JSON become render
 * requests (validated by the one schema), the engine renders them, and each PDF is written
 * atomically beside its input, into --out-dir, to -o, or to standard output.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { text } from 'node:stream/consumers';
import { Command, Option } from 'commander';
import { writeFileAtomic } from '../atomic-write.js';
import { checkRequest, createEngine, type Engine } from '../engine/engine.js';
import { requireBrowser } from '../engine/browser/find-browser.js';
import { engineNetworkOptions } from '../network/policy-settings.js';
import { PdfRenderError, callerError, exitCodeFor, labelFieldErrors } from '../errors.js';
import { parseRenderRequest, type RenderRequest } from '../request.js';
import type { CliIO } from './io.js';
import { planDocuments, type PlannedDocument } from './plan-documents.js';
import { flagFiles, requestFieldsFromFlags, requestOptions } from './request-flags.js';
import { parseRunOptions, runOptionFlags, runOptionsSchema } from './run-options.js';
import { colorLevel, painter } from './color.js';
import { createReporter, type DocumentOutcome, type Reporter } from './ui.js';
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

async function renderAll(
  io: CliIO,
  engine: Engine,
  documents: PlannedDocument[],
  shared: Record<string, unknown>,
  sources: Record<string, string>,
  requestFile: string | undefined,
  reporter: Reporter,
): Promise<Array<DocumentOutcome & { exitCode: number }>> {
  reporter.start(documents.length);
  const outcomes: Array<DocumentOutcome & { exitCode: number }> = new Array(documents.length);
  let next = 0;
  // Twice the engine's concurrency in flight, so reading and writing files overlaps rendering;
  // the engine's pool still bounds how many documents Chromium renders at once. Not p-map: on
  // abort (Ctrl-C, SIGTERM) it rejects at once and leaves the documents in flight running unwatched,
  // where this stops taking new ones and waits for those in flight, so each is written whole and
  // reported before the run says it stopped.
  const worker = async () => {
    while (next < documents.length && !io.signal.aborted) {
      const index = next++;
      outcomes[index] = await renderOne(io, engine, documents[index]!, shared, sources, requestFile);
      reporter.document(outcomes[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(documents.length, engine.concurrency * 2) }, worker));
  if (io.signal.aborted) throw io.signal.reason;
  return outcomes;
}

async function renderOne(
  io: CliIO,
  engine: Engine,
  document: PlannedDocument,
  shared: Record<string, unknown>,
  sources: Record<string, string>,
  requestFile: string | undefined,
): Promise<DocumentOutcome & { exitCode: number }> {
  const started = performance.now();
  const output = document.destination.kind === 'stdout' ? '-' : document.destination.path;
  try {
    const request = validate(
      { ...shared, ...(await documentFields(io, document)) },
      sources,
      requestFile,
      engine.check,
    );
    // A file's own URL, so a header's `url` class prints it (standard input has none).
    const documentUrl = document.source.kind === 'file' ? pathToFileURL(document.source.path).href : undefined;
    const result = await engine.render(request, { baseUrl: document.baseUrl, documentUrl, signal: io.signal });
    if (document.destination.kind === 'file') await writeFileAtomic(document.destination.path, result.pdf);
    else await writeStdout(io.stdout, result.pdf);
    const { blocked, failed } = result.network;
    return {
      input: document.label,
      output,
      pages: result.pages,
      bytes: result.bytes,
      ms: performance.now() - started,
      warnings: result.warnings,
      blocked,
      failed,
      files: result.files,
      exitCode: 0,
    };
  } catch (error) {
    if (io.signal.aborted) throw io.signal.reason;
    // One rule with the server: the safe message and its code, the cause for the log (stderr).
    const { code, message } = callerError(error);
    return {
      input: document.label,
      output: null,
      ms: performance.now() - started,
      error: message.replaceAll('\n', '; '),
      errorCode: code,
      cause: error,
      warnings: [],
      exitCode: exitCodeFor(error),
    };
  }
}

// A local file that failed to load (not there yet) counts for --watch too: making it renders again.
function missingFiles(outcome: DocumentOutcome): string[] {
  return (outcome.failed ?? [])
    .filter((issue) => issue.url.startsWith('file:'))
    .map((issue) => fileURLToPath(issue.url));
}

// The request fields the input gives: its HTML, or the URL of a page to load, in place of either
// one a --request file holds.
async function documentFields(
  io: CliIO,
  document: PlannedDocument,
): Promise<{ htmlContent: string | null; url: string | null } | undefined> {
  switch (document.source.kind) {
    case 'file':
      return { htmlContent: await readFile(document.source.path, 'utf8'), url: null };
    case 'stdin':
      return { htmlContent: await text(io.stdin), url: null };
    case 'url':
      return { htmlContent: null, url: document.source.url };
    case 'request':
      return undefined; // htmlContent or url is in the request file
  }
}

async function readRequestFile(path: string): Promise<Record<string, unknown>> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    throw new PdfRenderError(
      'USAGE',
      `--request: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new PdfRenderError('VALIDATION_FAILED', `--request: ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PdfRenderError('VALIDATION_FAILED', `--request: ${path} must hold a JSON object of request fields`);
  }
  return parsed as Record<string, unknown>;
}

/** Parse a request and check it against what the engine can do; on failure the error's lines name the flag (or the request file) behind each field. */
function validate(
  input: Record<string, unknown>,
  sources: Record<string, string>,
  requestFile: string | undefined,
  check: (request: RenderRequest) => void,
) {
  try {
    const request = parseRenderRequest(input);
    check(request);
    return request;
  } catch (error) {
    if (!(error instanceof PdfRenderError) || !error.fieldErrors) throw error;
    // A nested field (metadata.title) is named by the flag that set its top field (--metadata); a
    // shorthand such as --margin sets four fields, and one bad value is one line, not four.
    throw labelFieldErrors(error.fieldErrors, (field) => fieldLabel(field, sources[field.split('.')[0]!], requestFile));
  }
}

// The flag that set the field ("--scale", "--margin"), or "scale in req.json" from the file.
function fieldLabel(field: string, flag: string | undefined, requestFile: string | undefined): string {
  // "--metadata creationDate" for a key inside the flag's value.
  if (flag) return field.includes('.') ? `${flag} ${field.slice(field.indexOf('.') + 1)}` : flag;
  if (requestFile && field !== 'htmlContent' && field !== 'url') return `${field} in ${requestFile}`;
  return field;
}

function writeStdout(stdout: NodeJS.WritableStream, data: Uint8Array): Promise<void> {
  return new Promise((resolvePromise, reject) =>
    stdout.write(data, (error) => (error ? reject(error) : resolvePromise())),
  );
}
