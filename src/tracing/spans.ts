/**
 * pdfrender's spans, through @opentelemetry/api only: without a registered provider (tracing off,
 * cli/serve/start-tracing.ts) every call here is the API's no-op, and nothing is recorded or sent. The API's
 * global provider stands in for a tracer passed in: it is set in one place (cli/serve/start-tracing.ts, a
 * library user's own SDK, a test's in-memory one), and the parent of a span deep in the engine (a
 * wait) comes from the active context, where passing a tracer and a parent down to every wait would
 * change a dozen signatures and gain no test a registered provider does not already give.
 */
import {
  context,
  isSpanContextValid,
  propagation,
  ROOT_CONTEXT,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type SpanKind,
} from '@opentelemetry/api';

/** How a span starts: its attributes, kind, and parent (the active span's context when not given). */
export interface SpanStart {
  attributes?: Attributes;
  kind?: SpanKind;
  parent?: Context;
}

/**
 * Run `work` in a new span (active while it runs, so what it starts is its child) and end the span
 * when it settles; a throw marks the span failed with the error's code, never its message (which may
 * quote the document: a selector, a URL).
 */
export function inSpan<T>(name: string, work: (span: Span) => Promise<T>, start: SpanStart = {}): Promise<T> {
  const { parent = context.active(), ...options } = start;
  // Asked for at each span, not kept from the start: the bundled CLI has its own copy of the API, whose
  // proxy tracer would never learn of the provider the SDK's copy registers (the global registry does).
  return trace.getTracer('pdfrender').startActiveSpan(name, options, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      failSpan(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Mark `span` failed by `error`: its code (a PdfRenderError's, a system error's) or else its name as
 * error.type. Read off the error's shape, so tracing needs nothing of pdfrender's and every layer may
 * trace (the event log among the basics writes trace ids).
 */
export function failSpan(span: Span, error: unknown): void {
  const code = (error as { code?: unknown } | null)?.code;
  markError(span, typeof code === 'string' ? code : error instanceof Error ? error.name : 'Error');
}

/** Mark `span` failed, `type` saying how (an error code, an HTTP status, "timeout"): never a message, which may quote the document. */
export function markError(span: Span, type: string): void {
  span.setAttribute('error.type', type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}

/**
 * Run `work` outside any span: for loops and processes that outlive the request or job that started
 * them (the webhook sender's polls, a browser launched for a render), which would otherwise carry
 * its context, and its trace id onto their log lines, for good.
 */
export function detached<T>(work: () => T): T {
  return context.with(ROOT_CONTEXT, work);
}

/** The active span as a W3C traceparent string (stored with a job), or undefined when there is none (tracing off). */
export function currentTraceparent(): string | undefined {
  return traceHeaders().traceparent;
}

/** The context a stored (or received) traceparent names, to parent spans on; the root when there is none. */
export function contextOf(traceparent: string | null | undefined, tracestate?: string): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, tracestate ? { traceparent, tracestate } : { traceparent });
}

/** Run `work` with the span a stored traceparent names as the active one (so a log line names its trace), without a span of its own. */
export function inContextOf<T>(traceparent: string | null, work: () => T): T {
  return context.with(contextOf(traceparent), work);
}

/** The active span's headers for an outgoing request (traceparent, tracestate); none when tracing is off. */
export function traceHeaders(): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * traceId and spanId of the active span, for log lines: also of a trace not sampled (a caller's
 * traceparent with the sampled flag off still names the caller's trace); none with tracing off,
 * whose spans have no valid context.
 */
export function traceFields(): { traceId?: string; spanId?: string } {
  const span = trace.getActiveSpan();
  if (!span || !isSpanContextValid(span.spanContext())) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}
