/**
 * A decoder of OTLP/protobuf trace exports (`ExportTraceServiceRequest`, opentelemetry/proto/trace/v1)
 * into the shape of their OTLP/JSON encoding, for the tests' collector: the wire format read field by
 * field, with the field numbers of the protocol's .proto files (the SDK ships none to decode with).
 */

export interface AnyValue {
  stringValue?: string;
  intValue?: number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values: AnyValue[] };
}
export type KeyValue = { key: string; value: AnyValue };

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  traceState?: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: KeyValue[];
  droppedAttributesCount: number;
  events: { timeUnixNano: bigint; name: string; attributes: KeyValue[] }[];
  links: { traceId: string; spanId: string; traceState?: string; attributes: KeyValue[]; flags: number }[];
  status: { code: number; message?: string };
  flags: number;
}

export interface DecodedRequest {
  resourceSpans: {
    resource: { attributes: KeyValue[] };
    scopeSpans: { scope: { name: string; version?: string }; spans: DecodedSpan[] }[];
  }[];
}

type Value = bigint | Buffer;

/** The fields of one message, in order: [field number, value] (varints and fixed64s as bigint, others as bytes). */
function fieldsOf(bytes: Buffer): [number, Value][] {
  const fields: [number, Value][] = [];
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (at >= bytes.length) throw new Error('truncated varint');
      const byte = bytes[at++]!;
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    switch (tag & 7) {
      case 0:
        fields.push([field, varint()]);
        break;
      case 1:
        fields.push([field, bytes.readBigUInt64LE(at)]);
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        if (at + length > bytes.length) throw new Error('truncated field');
        fields.push([field, bytes.subarray(at, (at += length))]);
        break;
      }
      case 5:
        fields.push([field, bytes.subarray(at, (at += 4))]);
        break;
      default:
        throw new Error(`wire type ${tag & 7} is not in the trace protocol`);
    }
  }
  return fields;
}

const each = (bytes: Buffer, field: number) =>
  fieldsOf(bytes)
    .filter(([number]) => number === field)
    .map(([, value]) => value);
const bytesOf = (value: Value) => value as Buffer;
const text = (value: Value) => bytesOf(value).toString('utf8');
const number = (value: Value) => Number(value as bigint);

function anyValue(bytes: Buffer): AnyValue {
  const [field, value] = fieldsOf(bytes)[0] ?? [0, 0n];
  switch (field) {
    case 1:
      return { stringValue: text(value) };
    case 2:
      return { boolValue: value === 1n };
    case 3:
      return { intValue: Number(BigInt.asIntN(64, value as bigint)) };
    case 4: {
      const double = Buffer.alloc(8);
      double.writeBigUInt64LE(value as bigint);
      return { doubleValue: double.readDoubleLE(0) };
    }
    case 5:
      return { arrayValue: { values: each(bytesOf(value), 1).map((item) => anyValue(bytesOf(item))) } };
    default:
      return {};
  }
}

function keyValues(bytes: Buffer, field: number): KeyValue[] {
  return each(bytes, field).map((pair) => ({
    key: text(each(bytesOf(pair), 1)[0]!),
    value: anyValue(bytesOf(each(bytesOf(pair), 2)[0] ?? Buffer.alloc(0))),
  }));
}

function span(bytes: Buffer): DecodedSpan {
  const one = (field: number) => fieldsOf(bytes).find(([number]) => number === field)?.[1];
  const hex = (field: number) => (one(field) as Buffer | undefined)?.toString('hex');
  const status = bytesOf(one(15) ?? Buffer.alloc(0));
  const statusMessage = each(status, 2)[0];
  const decoded: DecodedSpan = {
    traceId: hex(1) ?? '',
    spanId: hex(2) ?? '',
    name: text(one(5) ?? Buffer.alloc(0)),
    kind: number(one(6) ?? 0n),
    startTimeUnixNano: (one(7) as bigint | undefined) ?? 0n,
    endTimeUnixNano: (one(8) as bigint | undefined) ?? 0n,
    attributes: keyValues(bytes, 9),
    droppedAttributesCount: number(one(10) ?? 0n),
    events: each(bytes, 11).map((event) => ({
      timeUnixNano: each(bytesOf(event), 1)[0] as bigint,
      name: text(each(bytesOf(event), 2)[0]!),
      attributes: keyValues(bytesOf(event), 3),
    })),
    links: each(bytes, 13).map((link) => ({
      traceId: bytesOf(each(bytesOf(link), 1)[0]!).toString('hex'),
      spanId: bytesOf(each(bytesOf(link), 2)[0]!).toString('hex'),
      ...(each(bytesOf(link), 3)[0] ? { traceState: text(each(bytesOf(link), 3)[0]!) } : {}),
      attributes: keyValues(bytesOf(link), 4),
      flags: bytesOf(each(bytesOf(link), 6)[0] ?? Buffer.alloc(4)).readUInt32LE(0),
    })),
    status: { code: number(each(status, 3)[0] ?? 0n), ...(statusMessage ? { message: text(statusMessage) } : {}) },
    flags: bytesOf(one(16) ?? Buffer.alloc(4)).readUInt32LE(0),
  };
  if (one(3)) decoded.traceState = text(one(3)!);
  if (hex(4)) decoded.parentSpanId = hex(4);
  return decoded;
}

/** An `ExportTraceServiceRequest`'s bytes as its JSON shape; throws on bytes that are not one. */
export function decodeTraceRequest(bytes: Buffer): DecodedRequest {
  return {
    resourceSpans: each(bytes, 1).map((resourceSpans) => ({
      resource: { attributes: keyValues(bytesOf(each(bytesOf(resourceSpans), 1)[0] ?? Buffer.alloc(0)), 1) },
      scopeSpans: each(bytesOf(resourceSpans), 2).map((scopeSpans) => {
        const scope = bytesOf(each(bytesOf(scopeSpans), 1)[0] ?? Buffer.alloc(0));
        const version = each(scope, 2)[0];
        return {
          scope: { name: text(each(scope, 1)[0] ?? Buffer.alloc(0)), ...(version ? { version: text(version) } : {}) },
          spans: each(bytesOf(scopeSpans), 2).map((item) => span(bytesOf(item))),
        };
      }),
    })),
  };
}
