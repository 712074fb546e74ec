/**
 * OpenTelemetry tracing for `pdfrender serve`: on only when the standard OTLP variables name an
 * endpoint. The SDK and its exporter are loaded with import() then, so a server without tracing
 * loads none of them; the rest of pdfrender talks to @opentelemetry/api alone, which does nothing
 * until a provider is registered here.
 */

import { valueWithin } from '../../race.js';

/** How long a stopping server waits for its last spans to be sent. */
const flushWithinMs = 2_000;

/** A started tracer provider. */
export interface Tracing {
  /** Send the spans still batched, within 2 s, and stop (the server's last step); rejects when they could not be sent in time. */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces: an OTLP endpoint, and the SDK not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * Register a tracer provider exporting batched spans over OTLP/HTTP (JSON), or do nothing and
 * return undefined when the environment does not ask for it. The exporter and the batch processor
 * read their own OTEL_* settings (endpoint, headers, OTEL_BSP_*); the resource is service.name
 * (OTEL_SERVICE_NAME, else "pdfrender"), service.version, and OTEL_RESOURCE_ATTRIBUTES.
 */
export async function startTracing(env: NodeJS.ProcessEnv, version: string): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const [{ NodeTracerProvider }, { BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
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
    // Bounded, so that a collector that does not answer (the exporter waits 10 s by default) does not
    // hold a stopping server past its --shutdown-grace by much.
    async shutdown() {
      if (
        !(await valueWithin(
          provider.shutdown().then(() => true),
          flushWithinMs,
          false,
        ))
      )
        throw new Error(`the collector did not take the last spans within ${flushWithinMs / 1000} s; they are lost`);
    },
  };
}
