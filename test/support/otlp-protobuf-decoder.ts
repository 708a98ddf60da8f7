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

/** One message's fields by number, each field's values in order (varints and fixed64s as bigint, others as bytes). */
type Fields = Map<number, Value[]>;

function fieldsOf(bytes: Buffer): Fields {
  const fields: Fields = new Map();
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
  const add = (field: number, value: Value) => {
    const values = fields.get(field);
    if (values) values.push(value);
    else fields.set(field, [value]);
  };
  while (at < bytes.length) {
    const tag = Number(varint());
    const field = tag >>> 3;
    switch (tag & 7) {
      case 0:
        add(field, varint());
        break;
      case 1:
        add(field, bytes.readBigUInt64LE(at));
        at += 8;
        break;
      case 2: {
        const length = Number(varint());
        if (at + length > bytes.length) throw new Error('truncated field');
        add(field, bytes.subarray(at, (at += length)));
        break;
      }
      case 5:
        add(field, bytes.subarray(at, (at += 4)));
        break;
      default:
        throw new Error(`wire type ${tag & 7} is not in the trace protocol`);
    }
  }
  return fields;
}

const NONE = Buffer.alloc(0);
const all = (fields: Fields, field: number) => fields.get(field) ?? [];
const bytesAt = (fields: Fields, field: number) => (all(fields, field)[0] as Buffer | undefined) ?? NONE;
const textAt = (fields: Fields, field: number) => bytesAt(fields, field).toString('utf8');
const numberAt = (fields: Fields, field: number) => Number((all(fields, field)[0] as bigint | undefined) ?? 0n);
const fixed32At = (fields: Fields, field: number) =>
  (all(fields, field)[0] as Buffer | undefined)?.readUInt32LE(0) ?? 0;
const messages = (fields: Fields, field: number) => all(fields, field).map((item) => fieldsOf(item as Buffer));

function anyValue(fields: Fields): AnyValue {
  const [field, [value] = []] = [...fields][0] ?? [0, []];
  switch (field) {
    case 1:
      return { stringValue: (value as Buffer).toString('utf8') };
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
      return { arrayValue: { values: messages(fieldsOf(value as Buffer), 1).map(anyValue) } };
    default:
      return {};
  }
}

function keyValues(fields: Fields, field: number): KeyValue[] {
  return messages(fields, field).map((pair) => ({ key: textAt(pair, 1), value: anyValue(fieldsOf(bytesAt(pair, 2))) }));
}

function span(fields: Fields): DecodedSpan {
  const status = fieldsOf(bytesAt(fields, 15));
  const decoded: DecodedSpan = {
    traceId: bytesAt(fields, 1).toString('hex'),
    spanId: bytesAt(fields, 2).toString('hex'),
    name: textAt(fields, 5),
    kind: numberAt(fields, 6),
    startTimeUnixNano: (all(fields, 7)[0] as bigint | undefined) ?? 0n,
    endTimeUnixNano: (all(fields, 8)[0] as bigint | undefined) ?? 0n,
    attributes: keyValues(fields, 9),
    droppedAttributesCount: numberAt(fields, 10),
    events: messages(fields, 11).map((event) => ({
      timeUnixNano: (all(event, 1)[0] as bigint | undefined) ?? 0n,
      name: textAt(event, 2),
      attributes: keyValues(event, 3),
    })),
    links: messages(fields, 13).map((link) => ({
      traceId: bytesAt(link, 1).toString('hex'),
      spanId: bytesAt(link, 2).toString('hex'),
      ...(link.has(3) ? { traceState: textAt(link, 3) } : {}),
      attributes: keyValues(link, 4),
      flags: fixed32At(link, 6),
    })),
    status: { code: numberAt(status, 3), ...(status.has(2) ? { message: textAt(status, 2) } : {}) },
    flags: fixed32At(fields, 16),
  };
  if (fields.has(3)) decoded.traceState = textAt(fields, 3);
  if (fields.has(4)) decoded.parentSpanId = bytesAt(fields, 4).toString('hex');
  return decoded;
}

/** An `ExportTraceServiceRequest`'s bytes as its JSON shape; throws on bytes that are not one. */
export function decodeTraceRequest(bytes: Buffer): DecodedRequest {
  return {
    resourceSpans: messages(fieldsOf(bytes), 1).map((resourceSpans) => ({
      resource: { attributes: keyValues(fieldsOf(bytesAt(resourceSpans, 1)), 1) },
      scopeSpans: messages(resourceSpans, 2).map((scopeSpans) => {
        const scope = fieldsOf(bytesAt(scopeSpans, 1));
        return {
          scope: { name: textAt(scope, 1), ...(scope.has(2) ? { version: textAt(scope, 2) } : {}) },
          spans: messages(scopeSpans, 2).map(span),
        };
      }),
    })),
  };
}
