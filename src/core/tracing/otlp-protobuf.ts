import type { AttributeValue, Link } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-node';
import { LeanSpan } from './lean-span.ts';
import { FIXED32, FIXED64, LEN, VARINT, Writer } from './protobuf-writer.ts';

/** The OTLP span flags: whether the parent is remote is known (0x100), and it is (0x200). */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

function writeValue(w: Writer, value: AttributeValue | undefined | null): void {
  if (typeof value === 'string') w.string(1, value);
  else if (typeof value === 'boolean') {
    w.tag(2, VARINT);
    w.varint(value ? 1 : 0);
  } else if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
      w.tag(3, VARINT);
      if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) w.varint(value);
      else w.wide(value);
    } else {
      w.tag(4, FIXED64);
      w.double(value);
    }
  } else if (Array.isArray(value)) {
    w.tag(5, LEN);
    const array = w.begin();
    for (const item of value) {
      w.tag(1, LEN);
      const at = w.begin();
      writeValue(w, item);
      w.end(at);
    }
    w.end(array);
  }
}

function writePair(w: Writer, field: number, key: string, value: AttributeValue | undefined): void {
  w.tag(field, LEN);
  const pair = w.begin();
  w.string(1, key);
  w.tag(2, LEN);
  const at = w.begin();
  writeValue(w, value);
  w.end(at);
  w.end(pair);
}

type AttributeMap = Readonly<Record<string, AttributeValue | undefined>>;

function writeAttributes(w: Writer, field: number, attributes: AttributeMap): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    writePair(w, field, key, attributes[key]);
  }
}

/**
 * The bytes of frozen attribute objects as a span's attributes (field 9), written once: they cannot
 * change. `null` for one holding an array, which can (freezing is shallow): written each time.
 */
const writtenOnce = new WeakMap<AttributeMap, Buffer | null>();
const scratch = new Writer(1 << 10);

/**
 * A span's attributes. A frozen object of scalar values is one that spans share (a statement's:
 * statement-spans.ts), so its bytes are kept and copied; any other is written.
 */
function writeSpanAttributes(w: Writer, attributes: AttributeMap): void {
  if (!Object.isFrozen(attributes)) return writeAttributes(w, 9, attributes);
  let bytes = writtenOnce.get(attributes);
  if (bytes === undefined) {
    bytes = Object.values(attributes).some(Array.isArray) ? null : bytesOf(attributes);
    writtenOnce.set(attributes, bytes);
  }
  if (bytes === null) writeAttributes(w, 9, attributes);
  else w.bytes(bytes);
}

function bytesOf(attributes: AttributeMap): Buffer {
  scratch.pos = 0;
  writeAttributes(scratch, 9, attributes);
  return Buffer.from(scratch.buf.subarray(0, scratch.pos));
}

function flagsOf(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

function writeEvent(w: Writer, event: TimedEvent): void {
  w.tag(11, LEN);
  const at = w.begin();
  w.tag(1, FIXED64);
  w.time(event.time);
  w.string(2, event.name);
  if (event.attributes) writeAttributes(w, 3, event.attributes);
  w.tag(4, VARINT);
  w.varint(event.droppedAttributesCount ?? 0);
  w.end(at);
}

function writeLink(w: Writer, link: Link): void {
  w.tag(13, LEN);
  const at = w.begin();
  w.hex(1, link.context.traceId);
  w.hex(2, link.context.spanId);
  const traceState = link.context.traceState?.serialize();
  if (traceState) w.string(3, traceState);
  if (link.attributes) writeAttributes(w, 4, link.attributes);
  w.tag(5, VARINT);
  w.varint(link.droppedAttributesCount ?? 0);
  w.tag(6, FIXED32);
  w.fixed32(flagsOf(link.context.traceFlags, link.context.isRemote));
  w.end(at);
}

/** The start and end (fields 7 and 8): a lean span's from its epoch milliseconds, with no HrTime made. */
function writeTimes(w: Writer, span: ReadableSpan): void {
  const lean = span instanceof LeanSpan;
  w.tag(7, FIXED64);
  if (lean && !Number.isNaN(span.startMs)) w.millis(span.startMs);
  else w.time(span.startTime);
  w.tag(8, FIXED64);
  if (lean && !Number.isNaN(span.endMs)) w.millis(span.endMs);
  else w.time(span.endTime);
}

/** One `Span` message (opentelemetry/proto/trace/v1/trace.proto), its fields in the SDK serializer's order. */
function writeSpan(w: Writer, span: ReadableSpan): void {
  w.tag(2, LEN);
  const at = w.begin();
  const context = span.spanContext();
  w.hex(1, context.traceId);
  w.hex(2, context.spanId);
  const traceState = context.traceState?.serialize();
  if (traceState) w.string(3, traceState);
  const parent = span.parentSpanContext;
  if (parent?.spanId) w.hex(4, parent.spanId);
  w.string(5, span.name);
  // The API's kinds start at INTERNAL = 0; the protocol's at UNSPECIFIED = 0.
  w.tag(6, VARINT);
  w.varint(span.kind + 1);
  writeTimes(w, span);
  writeSpanAttributes(w, span.attributes);
  w.tag(10, VARINT);
  w.varint(span.droppedAttributesCount);
  for (const event of span.events) writeEvent(w, event);
  w.tag(12, VARINT);
  w.varint(span.droppedEventsCount);
  for (const link of span.links) writeLink(w, link);
  w.tag(14, VARINT);
  w.varint(span.droppedLinksCount);
  w.tag(15, LEN);
  const status = w.begin();
  if (span.status.message) w.string(2, span.status.message);
  w.tag(3, VARINT);
  w.varint(span.status.code);
  w.end(status);
  w.tag(16, FIXED32);
  w.fixed32(flagsOf(context.traceFlags, parent?.isRemote));
  w.end(at);
}

function writeResource(w: Writer, resource: Resource): void {
  w.tag(1, LEN);
  const at = w.begin();
  writeAttributes(w, 1, resource.attributes);
  w.tag(2, VARINT);
  w.varint(0);
  w.end(at);
}

type Scope = ReadableSpan['instrumentationScope'];

function writeScope(w: Writer, scope: Scope): void {
  w.tag(1, LEN);
  const at = w.begin();
  w.string(1, scope.name);
  if (scope.version) w.string(2, scope.version);
  w.end(at);
}

const writer = new Writer();

/**
 * An OTLP `ExportTraceServiceRequest` of `spans` in protobuf, grouped by resource and instrumentation
 * scope: the bytes the SDK's `ProtobufTraceSerializer` writes for them (otlp-protobuf.test.ts compares
 * them), in one pass instead of its two, the ids written from hex natively.
 */
export function encodeTraceRequest(spans: readonly ReadableSpan[]): Uint8Array {
  const byResource = new Map<Resource, Map<Scope, ReadableSpan[]>>();
  for (const span of spans) {
    let scopes = byResource.get(span.resource);
    if (!scopes) byResource.set(span.resource, (scopes = new Map()));
    let list = scopes.get(span.instrumentationScope);
    if (!list) scopes.set(span.instrumentationScope, (list = []));
    list.push(span);
  }
  const w = writer;
  w.pos = 0;
  for (const [resource, scopes] of byResource) {
    w.tag(1, LEN);
    const at = w.begin();
    writeResource(w, resource);
    for (const [scope, list] of scopes) {
      w.tag(2, LEN);
      const scopeSpans = w.begin();
      writeScope(w, scope);
      for (const span of list) writeSpan(w, span);
      if (scope.schemaUrl) w.string(3, scope.schemaUrl);
      w.end(scopeSpans);
    }
    if (resource.schemaUrl) w.string(3, resource.schemaUrl);
    w.end(at);
  }
  return Uint8Array.prototype.slice.call(w.buf, 0, w.pos);
}
