/**
 * The batch runner of `pdfrender render`: the planned documents rendered side by side on one engine,
 * each one read (a file, standard input, a URL, or the request file's own document), validated with
 * the shared fields, rendered and written atomically to its destination, and reported as it ends.
 */
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { text } from 'node:stream/consumers';
import { writeFileAtomic } from '../../atomic-write.js';
import type { Engine } from '../../engine/engine.js';
import type { TemplateUrls } from '../../engine/prepare-templates.js';
import { reportOf } from '../../engine/report/render-report.js';
import { callerError, exitCodeFor } from '../../errors.js';
import type { CliIO } from '../io.js';
import type { PlannedDocument } from './plan-documents.js';
import { validate } from './request-file.js';
import type { DocumentOutcome, Reporter } from './ui.js';

/**
 * Render `documents` with `shared` fields (labelled by `sources`, else `requestFile`), the header and
 * footer files' URLs `templateUrls`, reporting each; throws the stop's reason when the run is stopped.
 * With `lastRound` (no --watch), nothing renders after these documents: the last one's page is not reset.
 */
export async function renderAll(
  io: CliIO,
  engine: Engine,
  documents: PlannedDocument[],
  shared: Record<string, unknown>,
  sources: Record<string, string>,
  requestFile: string | undefined,
  reporter: Reporter,
  templateUrls: TemplateUrls = {},
  lastRound = false,
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
      // The document taken when none is left is the run's last to start: no document follows it on its page.
      const final = lastRound && next === documents.length;
      outcomes[index] = await renderOne(io, engine, documents[index]!, shared, sources, requestFile, {
        templateUrls,
        final,
      });
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
  { templateUrls, final }: { templateUrls: TemplateUrls; final: boolean },
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
    // A request file's assets (a render-sync body replayed) are its document's folder, as on the
    // server: the engine puts them in place of the base URL.
    const result = await engine.render(request, {
      baseUrl: document.baseUrl,
      documentUrl,
      templateUrls,
      signal: io.signal,
      final,
    });
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
      report: result.report,
      files: result.files,
      exitCode: 0,
    };
  } catch (error) {
    if (io.signal.aborted) throw io.signal.reason;
    // One rule with the server: the safe message and its code, the cause for the log (stderr). The
    // CLI's user has no operator to ask: an unexpected failure says where its cause is printed.
    const { code, message: safe } = callerError(error);
    const message = code === 'INTERNAL_ERROR' ? 'pdfrender failed unexpectedly; its cause is on standard error' : safe;
    // A failOn rule's failure carries the report of the render it failed.
    const report = reportOf(error);
    return {
      input: document.label,
      output: null,
      ms: performance.now() - started,
      error: message.replaceAll('\n', '; '),
      errorCode: code,
      cause: error,
      warnings: [],
      ...(report && { report }),
      exitCode: exitCodeFor(error),
    };
  }
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

function writeStdout(stdout: NodeJS.WritableStream, data: Uint8Array): Promise<void> {
  return new Promise((resolvePromise, reject) =>
    stdout.write(data, (error) => (error ? reject(error) : resolvePromise())),
  );
}
