import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { ProtobufTraceSerializer, TraceExporterMetricsHelper } from '@opentelemetry/otlp-transformer';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { encodeTraceRequest } from './otlp-protobuf.ts';

/** The exporter's component type in the SDK's own metrics, as the official protobuf exporter names it. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

/**
 * The OTLP/HTTP protobuf span exporter: the official exporter's own parts (`@opentelemetry/otlp-exporter-base`
 * reads the `OTEL_EXPORTER_OTLP_*` headers, timeout and compression, retries what the protocol says to
 * retry and bounds the requests in flight), with the request's bytes written by `encodeTraceRequest`:
 * the same bytes as the SDK's serializer, in under half its time (README.md here, "Dependencies").
 */
export class OtlpProtobufSpanExporter extends OTLPExporterBase<ReadableSpan[]> {
  constructor(url: string) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions({ url }, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        { serializeRequest: encodeTraceRequest, deserializeResponse: ProtobufTraceSerializer.deserializeResponse },
        COMPONENT_TYPE,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
