/**
 * A small OTLP/HTTP trace receiver of the tests' own: what OpenTelemetry's OTLP/HTTP exporter posts
 * to /v1/traces as JSON, read the way the protocol's JSON encoding writes it (ids as hex, values by
 * type), and kept as flat spans.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as received. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 2 server, 3 client, 1 internal. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** The resource's attributes (service.name and those of OTEL_RESOURCE_ATTRIBUTES). */
  resource: Record<string, unknown>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind?: number;
        attributes?: OtlpAttribute[];
        status?: { code?: number };
      }>;
    }>;
  }>;
}

const valueOf = (value: OtlpValue): unknown =>
  value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue));

const attributesOf = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(attributes.map(({ key, value }) => [key, valueOf(value)]));

/** Start a receiver on loopback; `url` is what OTEL_EXPORTER_OTLP_ENDPOINT takes. */
export async function otlpReceiver() {
  const spans: ReceivedSpan[] = [];
  /** Requests that were not OTLP JSON trace exports (a protobuf one, another path). */
  const refused: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      if (req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(415).end();
        return;
      }
      const exported = JSON.parse(body.toString()) as OtlpRequest;
      for (const resourceSpans of exported.resourceSpans ?? []) {
        const resource = attributesOf(resourceSpans.resource?.attributes);
        for (const scope of resourceSpans.scopeSpans ?? [])
          for (const span of scope.spans ?? [])
            spans.push({
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId ?? '',
              name: span.name,
              kind: span.kind ?? 0,
              attributes: attributesOf(span.attributes),
              status: span.status?.code ?? 0,
              resource,
            });
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    refused,
    /** The spans named `name`. */
    named: (name: string) => spans.filter((span) => span.name === name),
    /** The children of `parent`. */
    childrenOf: (parent: ReceivedSpan) =>
      spans.filter((span) => span.traceId === parent.traceId && span.parentSpanId === parent.spanId),
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof otlpReceiver>>;
