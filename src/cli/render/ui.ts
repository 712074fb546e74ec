/**
 * What `pdfrender render` tells the person or the CI log: an ora progress line on a terminal,
 * one plain line per document elsewhere, only errors with --quiet, and a JSON summary with --json.
 * Progress goes to stderr; stdout is kept for data (the JSON summary, or a PDF with -o -).
 * The JSON has what a server's caller would get (codes and safe reasons, the preflight report);
 * stderr has one warning line per kind of problem the report holds, and, being the operator's log,
 * the detail: what a blocked name resolved to, the cause of a failure.
 */
import type { ChalkInstance } from 'chalk';
import type { Ora } from 'ora';
import { publicReport, type ResourceIssue } from '../../engine/network-report.js';
import { problemLines, type RenderReport } from '../../engine/report/render-report.js';
import { causeChain, PdfRenderError } from '../../errors.js';

/** What happened to one document, as printed and as in the JSON summary. */
export interface DocumentOutcome {
  input: string;
  /** The PDF's path, "-" for standard output, null when it failed. */
  output: string | null;
  pages?: number;
  bytes?: number;
  ms: number;
  /** The safe message and code of the failure (as a server's caller would get them). */
  error?: string;
  errorCode?: string;
  /** The error itself, whose cause is printed on stderr, never in the JSON. */
  cause?: unknown;
  warnings: string[];
  /** URLs the network policy refused, and URLs that failed to load. */
  blocked?: ResourceIssue[];
  failed?: ResourceIssue[];
  /** The preflight report: of a rendered document, or of one a failOn rule failed. */
  report?: RenderReport;
  /** Local files the document loaded (for --watch; not printed). */
  files?: string[];
}

export type ReportMode = 'normal' | 'quiet' | 'json';

export interface Reporter {
  start(total: number): void;
  document(outcome: DocumentOutcome): void;
  finish(outcomes: DocumentOutcome[], ms: number): void;
  /** A line about the run rather than one document (the browser was replaced), in every mode. */
  warn(message: string): void;
  /** Stop the spinner, whether or not the run finished (Ctrl-C). */
  close(): void;
}

/** A reporter for the mode; `interactive` is whether stderr is a terminal; `chalk` paints (or not, see color.ts). */
export async function createReporter(
  mode: ReportMode,
  interactive: boolean,
  stdout: NodeJS.WritableStream,
  stderr: NodeJS.WritableStream,
  chalk: ChalkInstance,
): Promise<Reporter> {
  // ora is loaded only for a spinner: it costs about 55 ms of start-up that CI logs never use.
  const ora = mode === 'normal' && interactive ? (await import('ora')).default : undefined;
  let spinner: Ora | undefined;
  let total = 0;
  let finished = 0;
  let failed = 0;
  const line = (text: string) => {
    // Printing through ora keeps the spinner below the printed lines instead of overwriting them.
    if (spinner) spinner.clear();
    stderr.write(`${text}\n`);
    spinner?.render();
  };
  const stopSpinner = () => {
    spinner?.stop();
    spinner = undefined;
  };
  let startedAt = 0;
  const progressText = () =>
    progressLine({ finished, total, failed, seconds: (performance.now() - startedAt) / 1000 }, chalk);
  // In a log, each document's line says where the run is.
  const position = () => (total > 1 ? `[${finished}/${total}] ` : '');

  return {
    start(count) {
      total = count;
      startedAt = performance.now();
      // discardStdin off: ora would otherwise put the terminal in raw mode and field Ctrl-C itself.
      if (ora && count > 0)
        spinner = ora({
          text: progressText(),
          stream: stderr,
          discardStdin: false,
          color: chalk.level > 0 ? 'cyan' : false,
        }).start();
    },
    document(outcome) {
      finished += 1;
      if (outcome.error) failed += 1;
      if (spinner) spinner.text = progressText();
      const warning = (text: string) => line(`${chalk.yellow('!')} ${outcome.input}: ${text}`);
      // The URLs whose failure has a detail only the operator may see (what a blocked name resolved
      // to, a raw load error): the report's line names the first URLs of a kind, not that.
      const details = () => {
        for (const kind of ['blocked', 'failed'] as const)
          for (const issue of outcome[kind] ?? [])
            if (issue.detail) warning(`${kind} ${issue.url}: ${issue.reason}${chalk.dim(` (${issue.detail})`)}`);
      };
      const errorLines = () => [
        `${chalk.red('✖')} ${outcome.input}: ${outcome.error}`,
        ...causeMessages(outcome.cause).map((cause) => chalk.dim(`  cause: ${cause}`)),
      ];
      if (mode === 'json') {
        // The JSON on stdout leaves the detail out; stderr (the log) has it, and every error, as in every mode.
        details();
        if (outcome.error) errorLines().forEach(line);
        return;
      }
      // --quiet is errors only; otherwise a `!` line per warning and per kind of problem the report
      // holds (not per URL or character: a document with a hundred boxes gets one line), leaving out
      // the one a failOn rule's error already says.
      if (mode === 'normal') {
        outcome.warnings.forEach(warning);
        for (const text of Object.values(outcome.report ? problemLines(outcome.report) : {}))
          if (!outcome.error?.includes(text)) warning(text);
        details();
      }
      if (outcome.error) errorLines().forEach(line);
      else if (mode === 'normal' && (!interactive || total === 1))
        line(`${chalk.green('✔')} ${interactive ? '' : position()}${describe(outcome, chalk)}`);
    },
    close: stopSpinner,
    warn: (message) => line(`${chalk.yellow('!')} ${message}`),
    finish(outcomes, ms) {
      stopSpinner();
      if (mode === 'json') {
        const rendered = outcomes.filter((o) => !o.error).length;
        stdout.write(
          `${JSON.stringify({ rendered, failed: outcomes.length - rendered, ms: Math.round(ms), documents: outcomes.map(jsonOutcome) }, null, 2)}\n`,
        );
        return;
      }
      if (mode === 'quiet' || outcomes.length < 2) return;
      const ok = outcomes.length - failed;
      const rate = ok / (ms / 1000);
      const summary = `${ok} of ${outcomes.length} PDFs rendered in ${(ms / 1000).toFixed(1)} s (${rate.toFixed(1)} docs/s)`;
      stderr.write(
        `${failed ? chalk.red('✖') : chalk.green('✔')} ${summary}${failed ? chalk.red(`, ${failed} failed`) : ''}\n`,
      );
    },
  };
}

/** The spinner's text: the count, and the rate and time left once a document is done to measure by. */
export function progressLine(
  progress: { finished: number; total: number; failed: number; seconds: number },
  chalk: ChalkInstance,
): string {
  const { finished, total, failed, seconds } = progress;
  const rate = finished / seconds;
  const pace =
    finished > 0 && seconds > 0 ? `, ${rate.toFixed(1)} docs/s, ${formatSeconds((total - finished) / rate)} left` : '';
  return `Rendering ${finished}/${total}${pace}${failed ? chalk.red(` (${failed} failed)`) : ''}`;
}

function formatSeconds(seconds: number): string {
  const whole = Math.ceil(seconds);
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

function describe(outcome: DocumentOutcome, chalk: ChalkInstance): string {
  const target = outcome.output === '-' ? 'stdout' : outcome.output;
  const pages = `${outcome.pages} page${outcome.pages === 1 ? '' : 's'}`;
  return `${outcome.input} → ${target} ${chalk.dim(`(${pages}, ${formatBytes(outcome.bytes ?? 0)}, ${Math.round(outcome.ms)} ms)`)}`;
}

function jsonOutcome({ cause: _cause, files: _files, ...outcome }: DocumentOutcome) {
  const network = outcome.blocked ? publicReport({ blocked: outcome.blocked, failed: outcome.failed ?? [] }) : {};
  return { ...outcome, ...network, ms: Math.round(outcome.ms) };
}

// What the caller's safe message leaves out: a raw error's own message, and the causes of either.
function causeMessages(error: unknown): string[] {
  return causeChain(error instanceof PdfRenderError ? error.cause : error).map((current) =>
    current instanceof Error ? current.message.replaceAll('\n', '; ') : String(current),
  );
}

/** "23.4 kB" style sizes. */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} kB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
