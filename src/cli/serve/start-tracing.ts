/**
 * OpenTelemetry tracing for `pdfrender serve`: on only when the standard OTLP variables name an
 * endpoint. The SDK and its exporter are loaded with import() then, so a server without tracing
 * loads none of them; the rest of pdfrender talks to @opentelemetry/api alone, which does nothing
 * until a provider is registered here. What goes wrong is said: a setting pdfrender cannot honour
 * stops the start, spans that could not be sent are a warning in the log (once a minute at most).
 */
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { PdfRenderError } from '../../errors.js';
import { valueWithin } from '../../race.js';

/** How long a stopping server waits for its last spans to be sent. */
const flushWithinMs = 2_000;
/** The SDK's complaints (an export that failed) reach the log at most this often. */
const warnEveryMs = 60_000;

/** A started tracer provider. */
export interface Tracing {
  /** Where the spans go, for the start-up line. */
  url: string;
  /** Send the spans still batched, within 2 s, and stop (the server's last step); false when they could not be sent in time. */
  shutdown(): Promise<boolean>;
}

/** Whether the environment asks for traces: an OTLP endpoint, the SDK not disabled, the exporter not `none`. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() === 'none') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The URL spans are posted to, as the exporter reads the variables; a start-up error naming the variable when it is no URL. */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  const [name, url] = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim()
    ? ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT.trim()]
    : ['OTEL_EXPORTER_OTLP_ENDPOINT', `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.trim().replace(/\/$/, '')}/v1/traces`];
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
    throw new PdfRenderError(
      'USAGE',
      `${name} must be an http(s) URL of an OTLP/HTTP collector (http://collector:4318)`,
    );
  return url;
}

/**
 * The exporter sends OTLP/HTTP with JSON bodies, which a collector's HTTP receiver (port 4318)
 * takes whatever protocol is named; gRPC (port 4317) is another receiver, which would refuse every
 * export: refused at start rather than lost in silence.
 */
function checkProtocol(env: NodeJS.ProcessEnv): void {
  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = env[name]?.trim().toLowerCase();
    if (protocol && protocol !== 'http/json' && protocol !== 'http/protobuf')
      throw new PdfRenderError(
        'USAGE',
        `${name}=${protocol} is not supported: pdfrender sends traces over OTLP/HTTP (JSON); point the endpoint at the collector's HTTP receiver (port 4318) and set http/json, or leave the protocol unset`,
      );
  }
}

/**
 * Register a tracer provider exporting batched spans over OTLP/HTTP (JSON), or do nothing and
 * return undefined when the environment does not ask for it. The exporter and the batch processor
 * read their own OTEL_* settings (endpoint, headers, OTEL_BSP_*); the resource is service.name
 * (OTEL_SERVICE_NAME, else "pdfrender"), service.version, and OTEL_RESOURCE_ATTRIBUTES. `warn`
 * receives what the SDK reports going wrong (an export that failed).
 */
export async function startTracing(
  env: NodeJS.ProcessEnv,
  version: string,
  warn: (message: string) => void,
): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const url = tracesUrl(env);
  checkProtocol(env);
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  diag.setLogger(sdkWarnings(url, warn), DiagLogLevel.WARN);
  // The environment's attributes (OTEL_RESOURCE_ATTRIBUTES, OTEL_SERVICE_NAME) win over the defaults.
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'pdfrender', 'service.version': version })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  // The AsyncLocalStorage context manager (a span is the parent of what its callbacks start) and the
  // W3C traceparent propagator.
  provider.register();
  return {
    url,
    // Bounded, so that a collector that does not answer (the exporter waits 10 s by default, and
    // retries a refused connection) holds a stopping server at most this long past its grace.
    shutdown: () =>
      valueWithin(
        provider.shutdown().then(() => true),
        flushWithinMs,
        false,
      ),
  };
}

/** The SDK's diagnostic logger: its warnings and errors as one warning a minute at most, naming where spans go. */
function sdkWarnings(url: string, warn: (message: string) => void) {
  let lastAt = -Infinity;
  let unsaid = 0;
  const say = (...args: unknown[]) => {
    const now = performance.now();
    if (now - lastAt < warnEveryMs) return void (unsaid += 1);
    const before = unsaid > 0 ? ` (and ${unsaid} more in the last minute)` : '';
    lastAt = now;
    unsaid = 0;
    const reason = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
    warn(`tracing: spans could not be sent to ${url}: ${reason}${before}`);
  };
  const quiet = () => undefined;
  return { error: say, warn: say, info: quiet, debug: quiet, verbose: quiet };
}
