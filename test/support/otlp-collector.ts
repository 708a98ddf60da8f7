import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeTraceRequest } from './otlp-protobuf-decoder.ts';

/** One span as the OTLP/JSON encoding sends it, its attributes flattened to plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  status: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

export interface OtlpCollector {
  url: string;
  /** Every span received so far, over OTLP/JSON or OTLP/protobuf (decoded by otlp-protobuf-decoder.ts). */
  spans: ReceivedSpan[];
  /** The bodies received over OTLP/protobuf, as they came. */
  protobufBodies: Buffer[];
  /** The Content-Type of each export request. */
  contentTypes: string[];
  /** The headers of each export request. */
  headers: IncomingHttpHeaders[];
  /** Resolves once `predicate` holds of the spans received (polling), or rejects after `timeoutMs`. */
  until(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}

type KeyValue = { key: string; value: AnyValue };

function plain(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(list: KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        status?: { code?: number };
        attributes?: KeyValue[];
      }[];
    }[];
  }[];
}

/**
 * A small OTLP/HTTP traces receiver, as a collector would be: `POST /v1/traces`, JSON decoded into
 * spans, protobuf decoded into the same (its bodies kept too). Answers 200 with an empty export response.
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  const protobufBodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const receive = (decoded: ExportRequest) => {
    for (const resourceSpans of decoded.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ?? '',
            name: span.name,
            kind: span.kind,
            status: span.status?.code ?? 0,
            attributes: attributesOf(span.attributes),
            service,
          });
    }
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const type = request.headers['content-type'] ?? '';
      contentTypes.push(type);
      headers.push(request.headers);
      if (type.startsWith('application/json')) {
        receive(JSON.parse(body.toString('utf8')) as ExportRequest);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else {
        protobufBodies.push(body);
        receive(decodeTraceRequest(body) as ExportRequest);
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    protobufBodies,
    contentTypes,
    headers,
    async until(predicate, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate(spans)) {
        if (Date.now() > deadline) throw new Error(`spans never matched; received:\n${describeSpans(spans)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return spans;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The spans one per line (name, ids, attributes), for a failure's message. */
export function describeSpans(spans: readonly ReceivedSpan[]): string {
  return spans
    .map(
      (s) => `${s.name} trace=${s.traceId} span=${s.spanId} parent=${s.parentSpanId} ${JSON.stringify(s.attributes)}`,
    )
    .join('\n');
}

/** OTLP span kinds, as the export encodes them. */
export const SPAN_KIND = { SERVER: 2, CLIENT: 3, PRODUCER: 4 } as const;

/** A fresh trace and the caller's span in it, as a W3C `traceparent`. */
export function newTrace(): { traceId: string; parentId: string; traceparent: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, traceparent: `00-${traceId}-${parentId}-01` };
}
