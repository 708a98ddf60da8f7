import protobuf from 'protobufjs';

/**
 * The tests' reading of OTLP/protobuf trace exports (`ExportTraceServiceRequest`) into the shape of their
 * OTLP/JSON encoding, so the collector handles both alike: protobufjs decodes the bytes, by the messages
 * of the protocol's own .proto files (opentelemetry-proto, `opentelemetry/proto/{collector/trace,trace,
 * common,resource}/v1`) as written below, the fields the tests read, with the protocol's names and numbers.
 * Fields not listed are skipped as unknown, as any protobuf reader does. The SDK's exporter, not this
 * project, writes the bytes; this reads them independently of it.
 */
const OTLP_TRACES = `
syntax = "proto3";
package opentelemetry.proto;
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope { string name = 1; string version = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Status { string message = 2; int32 code = 3; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; fixed32 flags = 16;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; Status status = 15;
}
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;

const request = protobuf.parse(OTLP_TRACES).root.lookupType('opentelemetry.proto.ExportTraceServiceRequest');

/** An `ExportTraceServiceRequest`'s bytes as its JSON shape (ids as hex, as OTLP/JSON writes them). */
export function decodeTraceRequest(bytes: Buffer): unknown {
  const decoded = request.toObject(request.decode(bytes), {
    longs: String,
    enums: Number,
    bytes: Buffer,
    oneofs: false,
  });
  const hex = (value: unknown) =>
    value instanceof Uint8Array && value.length > 0 ? Buffer.from(value).toString('hex') : undefined;
  for (const resourceSpans of (decoded.resourceSpans ?? []) as {
    scopeSpans?: { spans?: Record<string, unknown>[] }[];
  }[])
    for (const scope of resourceSpans.scopeSpans ?? [])
      for (const span of scope.spans ?? [])
        for (const id of ['traceId', 'spanId', 'parentSpanId']) span[id] = hex(span[id]);
  return decoded;
}
