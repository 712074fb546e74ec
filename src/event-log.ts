/**
 * The operator's log of what went wrong, beside the access log (same --log-format, same stream):
 * the cause of every unexpected error and of every failed render, with its stack, and the detail
 * of blocked URLs. Callers get only a code and a safe message (see callerError in errors.ts); this is
 * where the rest goes.
 */
import { causeChain, causeLines, PdfRenderError } from './errors.js';
import { traceFields } from './tracing/spans.js';

/** A URL the document asked for and did not get (the engine's ResourceIssue), as the log writes it. */
export interface LoggedIssue {
  url: string;
  reason: string;
  detail?: string;
}

/** One event: what happened, where (request or job), and why. */
export interface LogEvent {
  level: 'error' | 'warn' | 'info';
  message: string;
  /** The request it happened in ("POST /api/pdfs/render-sync"), or the async job. */
  request?: string;
  /** The request's ID (X-Request-Id, edge/request-id.ts). */
  requestId?: string | undefined;
  jobId?: string;
  /** The code the caller was told. */
  code?: string;
  /** The cause, logged with its stack and its own causes. */
  error?: unknown;
  /** Blocked or failed URLs with the detail their callers were not told. */
  issues?: LoggedIssue[];
  /** What the caller was not told of a refusal (a webhook URL's resolved address, a DNS error). */
  detail?: string;
  /** A job's change of state (queue/job-change.ts): the state it is in now, and of which attempt. */
  state?: string;
  attempt?: number;
  maxAttempts?: number;
  /** How long the attempt's render took. */
  ms?: number;
}

/** Receives events for the operator's log. */
export type EventLog = (event: LogEvent) => void;

/** A writer for events in the chosen format, one JSON line or a pretty line (and its stack lines) each. */
export function eventLogWriter(format: 'pretty' | 'json', write: (line: string) => void): EventLog {
  return ({ error, ...logged }) => {
    const time = new Date().toISOString();
    // The span the event happened in (a request's, a job's), when tracing is on.
    const event = { ...logged, ...traceFields() };
    const expected = expectedFailure(error);
    if (format === 'json')
      return write(
        JSON.stringify({
          time,
          ...event,
          ...(error === undefined
            ? {}
            : { error: expected ? { name: expected.name, message: expected.message } : errorFields(error) }),
        }),
      );
    const where = [
      event.request,
      event.jobId && `job ${event.jobId}`,
      event.code,
      event.traceId && `trace ${event.traceId}`,
    ]
      .filter(Boolean)
      .join(' ');
    const said = `${time} ${event.level.toUpperCase()} ${event.message}${where ? ` (${where})` : ''}`;
    if (expected) return write(`${said}: ${expected.message}`);
    const lines = [said];
    if (event.detail) lines.push(`  ${event.detail}`);
    for (const issue of event.issues ?? [])
      lines.push(`  ${issue.url}: ${issue.reason}${issue.detail ? ` (${issue.detail})` : ''}`);
    if (error !== undefined) lines.push(...causeLines(error).map((line) => `  ${line}`));
    write(lines.join('\n'));
  };
}

/** Log the blocked and failed URLs of a render that have a detail its caller was not told, if any. */
export function logReportDetail(
  events: EventLog,
  report: { blocked: LoggedIssue[]; failed: LoggedIssue[] },
  where: { request?: string; requestId?: string | undefined; jobId?: string },
): void {
  const issues = [...report.blocked, ...report.failed].filter((issue) => issue.detail !== undefined);
  if (issues.length > 0)
    events({ level: 'info', message: 'the document asked for URLs it did not get', ...where, issues });
}

/**
 * A failure pdfrender foresaw, whose message says all there is (the document's deadline passed, a
 * failOn rule, a URL the policy refused), or null: one line in the log, since a stack trace would
 * only show where pdfrender noticed, and a busy server's log would be mostly stacks.
 */
function expectedFailure(error: unknown): PdfRenderError | null {
  return error instanceof PdfRenderError && (error.documentFault === true || error.cause === undefined) ? error : null;
}

// An error as JSON: name, message, code, stack, and its cause the same way.
function errorFields(error: unknown): unknown {
  return causeChain(error).reduceRight<unknown>((cause, current) => {
    if (!(current instanceof Error)) return String(current);
    const code = (current as { code?: unknown }).code;
    return {
      name: current.name,
      message: current.message,
      ...(code === undefined ? {} : { code }),
      stack: current.stack,
      ...(cause === undefined ? {} : { cause }),
    };
  }, undefined);
}
