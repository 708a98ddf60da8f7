import type { SpanContext } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { LeanSpan } from './lean-span.ts';
import { LeanSpanContext } from './span-context.ts';
import { flagsOf, writeAttributes, writeEvent, writeLink, type AttributeMap } from './otlp-parts.ts';
import { FIXED32, FIXED64, LEN, VARINT, Writer } from './protobuf-writer.ts';

/** The bytes of span names (field 5), kept. */
const names = new Map<string, Uint8Array>();

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
  const bytes = Object.isFrozen(attributes) ? sharedBytes(attributes) : null;
  if (bytes === null) writeAttributes(w, 9, attributes);
  else w.bytes(bytes);
}

/** The kept bytes of a frozen attributes object (written in `scratch` the first time), or `null` when it holds an array. */
function sharedBytes(attributes: AttributeMap): Buffer | null {
  let bytes = writtenOnce.get(attributes);
  if (bytes === undefined) {
    bytes = Object.values(attributes).some(Array.isArray) ? null : bytesOf(attributes);
    writtenOnce.set(attributes, bytes);
  }
  return bytes;
}

function bytesOf(attributes: AttributeMap): Buffer {
  scratch.pos = 0;
  writeAttributes(scratch, 9, attributes);
  return Buffer.from(scratch.buf.subarray(0, scratch.pos));
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

/** The trace and span ids (fields 1, 2) and the trace state (3): copied from where they were drawn, else from their hex. */
function writeIds(w: Writer, context: SpanContext): void {
  if (context instanceof LeanSpanContext) {
    if (context.traceBytes) w.id(1, context.traceBytes, context.traceOffset, 16);
    else w.hex(1, context.traceId);
    w.id(2, context.spanBytes, context.spanOffset, 8);
  } else {
    w.hex(1, context.traceId);
    w.hex(2, context.spanId);
  }
  const traceState = context.traceState?.serialize();
  if (traceState) w.string(3, traceState);
}

/** The parent's span id (field 4), if the span has a parent. */
function writeParent(w: Writer, parent: SpanContext | undefined): void {
  if (parent instanceof LeanSpanContext) w.id(4, parent.spanBytes, parent.spanOffset, 8);
  else if (parent?.spanId) w.hex(4, parent.spanId);
}

/** The name and kind (fields 5, 6). */
function writeHead(w: Writer, name: string, kind: number): void {
  w.keptString(5, name, names);
  // The API's kinds start at INTERNAL = 0; the protocol's at UNSPECIFIED = 0.
  w.tag(6, VARINT);
  w.varint(kind + 1);
}

/** Fields 9 to 16: the attributes, events, links, their dropped counts, the status and the flags. */
function writeTail(w: Writer, span: ReadableSpan, flags: number): void {
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
  w.fixed32(flags);
}

/**
 * The bytes of a span's head and tail that spans sharing a frozen attributes object have in common
 * (a statement's spans, an operation's: same name, kind, status and flags, no events or links), and
 * their length: such a span is its ids, these, and its times, written with no length to work out.
 */
interface Template {
  name: string;
  kind: number;
  code: number;
  flags: number;
  head: Uint8Array;
  tail: Uint8Array;
}

const templates = new WeakMap<AttributeMap, Template>();

function templateOf(span: ReadableSpan, context: SpanContext, flags: number): Template | undefined {
  const attributes = span.attributes;
  if (
    // The tracer's own ids are valid (drawn here, or a caller's checked), so their length is known; another's may not be.
    !(context instanceof LeanSpanContext) ||
    !Object.isFrozen(attributes) ||
    context.traceState !== undefined ||
    span.events.length > 0 ||
    span.links.length > 0 ||
    span.droppedAttributesCount + span.droppedEventsCount + span.droppedLinksCount > 0 ||
    span.status.message
  ) {
    return undefined;
  }
  const kept = templates.get(attributes);
  if (kept?.name === span.name && kept.kind === span.kind && kept.code === span.status.code && kept.flags === flags) {
    return kept;
  }
  // Kept first (in `scratch`, which the head and tail are written in next); one holding an array is written each time.
  if (sharedBytes(attributes) === null) return undefined;
  scratch.pos = 0;
  writeHead(scratch, span.name, span.kind);
  const head = Buffer.from(scratch.buf.subarray(0, scratch.pos));
  scratch.pos = 0;
  writeTail(scratch, span, flags);
  const tail = Buffer.from(scratch.buf.subarray(0, scratch.pos));
  const made = { name: span.name, kind: span.kind, code: span.status.code, flags, head, tail };
  templates.set(attributes, made);
  return made;
}

/** One `Span` message (opentelemetry/proto/trace/v1/trace.proto), its fields in the SDK serializer's order. */
function writeSpan(w: Writer, span: ReadableSpan): void {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  const flags = flagsOf(context.traceFlags, parent?.isRemote);
  w.tag(2, LEN);
  const template = templateOf(span, context, flags);
  if (template) {
    // Valid ids (templateOf): 16 and 8 bytes, each with its tag and length.
    w.varint(18 + 10 + (parent?.spanId ? 10 : 0) + template.head.length + 18 + template.tail.length);
    writeIds(w, context);
    writeParent(w, parent);
    w.bytes(template.head);
    writeTimes(w, span);
    w.bytes(template.tail);
    return;
  }
  const at = w.begin();
  writeIds(w, context);
  writeParent(w, parent);
  writeHead(w, span.name, span.kind);
  writeTimes(w, span);
  writeTail(w, span, flags);
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
  // A copy the export keeps (the writer's buffer is the next batch's), not zero-filled first as `slice` does.
  const bytes = Buffer.allocUnsafe(w.pos);
  w.buf.copy(bytes, 0, 0, w.pos);
  return bytes;
}
