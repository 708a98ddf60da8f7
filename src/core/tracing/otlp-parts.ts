import type { AttributeValue, Link } from '@opentelemetry/api';
import type { TimedEvent } from '@opentelemetry/sdk-trace-node';
import { FIXED32, FIXED64, LEN, VARINT, type Writer } from './protobuf-writer.ts';

/*
 * The parts of an OTLP span message (opentelemetry/proto/trace/v1/trace.proto) below the span itself:
 * attributes, events, links and the flags, as the SDK serializer writes them (otlp-protobuf.ts).
 */

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

/** The bytes of attribute keys (field 1 of a pair), kept. */
const keys = new Map<string, Uint8Array>();

function writePair(w: Writer, field: number, key: string, value: AttributeValue | undefined): void {
  w.tag(field, LEN);
  const pair = w.begin();
  w.keptString(1, key, keys);
  w.tag(2, LEN);
  const at = w.begin();
  writeValue(w, value);
  w.end(at);
  w.end(pair);
}

export type AttributeMap = Readonly<Record<string, AttributeValue | undefined>>;

export function writeAttributes(w: Writer, field: number, attributes: AttributeMap): void {
  for (const key in attributes) {
    if (!Object.hasOwn(attributes, key)) continue;
    writePair(w, field, key, attributes[key]);
  }
}

export function flagsOf(traceFlags: number, isRemote: boolean | undefined): number {
  return (traceFlags & 0xff) | HAS_IS_REMOTE | (isRemote ? IS_REMOTE : 0);
}

export function writeEvent(w: Writer, event: TimedEvent): void {
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

export function writeLink(w: Writer, link: Link): void {
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
