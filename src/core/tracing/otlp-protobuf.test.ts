import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type AttributeValue,
  type HrTime,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import fc from 'fast-check';
import { decodeTraceRequest } from '../../../test/support/otlp-protobuf-decoder.ts';
import { LeanTracerProvider, recordEndedSpan, startChildSpan, startServerSpan } from './lean-tracer.ts';
import { encodeTraceRequest } from './otlp-protobuf.ts';
import { Writer } from './protobuf-writer.ts';
import { samplerFromEnv } from './sampler-from-env.ts';

const hex = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((array) => Buffer.from(array).toString('hex'));
const hrTime = fc.tuple(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 999_999_999 }));
const text = fc.string({ unit: 'binary', maxLength: 200 });
const scalar = fc.oneof(
  text,
  fc.boolean(),
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(2 ** 60, -(2 ** 62), 0, -1),
  fc.double({ noNaN: true }),
);
const value: fc.Arbitrary<AttributeValue> = fc.oneof(
  scalar,
  fc.array(text, { maxLength: 4 }),
  fc.array(fc.integer(), { maxLength: 4 }),
);
const attributes = fc.dictionary(fc.string({ minLength: 1, maxLength: 30 }), value, { maxKeys: 8 });
const traceState = fc.option(fc.constantFrom('vendor=a', 'one=1,two=2'), { nil: undefined });

const resource = resourceFromAttributes({ 'service.name': 'content-service', 'deployment.environment': 'test' });
const scopes = [{ name: 'content-service' }, { name: 'another-instrumentation', version: '1.2.3' }];

const span: fc.Arbitrary<ReadableSpan> = fc
  .record({
    traceId: hex(16),
    spanId: hex(8),
    traceState,
    parent: fc.option(fc.record({ spanId: hex(8), isRemote: fc.boolean() }), { nil: undefined }),
    name: text,
    kind: fc.constantFrom(SpanKind.INTERNAL, SpanKind.SERVER, SpanKind.CLIENT, SpanKind.PRODUCER, SpanKind.CONSUMER),
    startTime: hrTime,
    endTime: hrTime,
    attributes,
    events: fc.array(fc.record({ name: text, time: hrTime, attributes, droppedAttributesCount: fc.nat(3) }), {
      maxLength: 2,
    }),
    links: fc.array(fc.record({ traceId: hex(16), spanId: hex(8), traceState, attributes }), { maxLength: 2 }),
    status: fc.oneof(
      fc.constant({ code: SpanStatusCode.UNSET }),
      fc.constant({ code: SpanStatusCode.OK }),
      fc.record({ code: fc.constant(SpanStatusCode.ERROR), message: text }),
    ),
    dropped: fc.tuple(fc.nat(300), fc.nat(3), fc.nat(3)),
    scope: fc.nat(scopes.length - 1),
    frozen: fc.boolean(),
  })
  .map((s) => ({
    name: s.name,
    kind: s.kind,
    spanContext: () => ({
      traceId: s.traceId,
      spanId: s.spanId,
      traceFlags: TraceFlags.SAMPLED,
      ...(s.traceState ? { traceState: new TraceState(s.traceState) } : {}),
    }),
    parentSpanContext: s.parent && {
      traceId: s.traceId,
      spanId: s.parent.spanId,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: s.parent.isRemote,
    },
    startTime: s.startTime as HrTime,
    endTime: s.endTime as HrTime,
    duration: [0, 0] as HrTime,
    status: s.status,
    // A frozen object is written once and its bytes kept (statement spans share theirs).
    attributes: s.frozen ? Object.freeze(s.attributes) : s.attributes,
    events: s.events.map((event) => ({ ...event, time: event.time as HrTime })),
    links: s.links.map((link) => ({
      context: {
        traceId: link.traceId,
        spanId: link.spanId,
        traceFlags: TraceFlags.NONE,
        ...(link.traceState ? { traceState: new TraceState(link.traceState) } : {}),
      },
      attributes: link.attributes,
    })),
    ended: true,
    resource,
    instrumentationScope: scopes[s.scope]!,
    droppedAttributesCount: s.dropped[0],
    droppedEventsCount: s.dropped[1],
    droppedLinksCount: s.dropped[2],
  }));

describe('the OTLP/protobuf encoding of spans', () => {
  it("writes the SDK serializer's bytes for any spans: ids, times, every kind of attribute, events, links, status, scopes", () => {
    fc.assert(
      fc.property(fc.array(span, { maxLength: 12 }), (spans) => {
        const ours = Buffer.from(encodeTraceRequest(spans));
        const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array());
        assert.equal(ours.toString('hex'), sdk.toString('hex'));
      }),
      { numRuns: 300 },
    );
  });

  it('writes a frozen attributes object its spans share as the SDK does, each time, and times to the nanosecond', () => {
    const shared = Object.freeze({
      'db.system.name': 'sqlite',
      'db.query.text': 'select "id" from "users" where "id" = ?',
    });
    const spans = fc.sample(span, { numRuns: 6, seed: 11 }).map((one, i) => ({
      ...one,
      attributes: shared,
      startTime: [2 ** 32 - 1 - i, 999_999_999] as HrTime,
      endTime: [0, i] as HrTime,
    }));
    for (const list of [spans, spans.slice(2), spans]) {
      const ours = Buffer.from(encodeTraceRequest(list)).toString('hex');
      const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(list) ?? new Uint8Array()).toString('hex');
      assert.equal(ours, sdk);
    }
  });

  it('writes a frozen object whose array value changed with the new value (freezing is shallow)', () => {
    const ports = [1, 2];
    const [one] = fc.sample(span, { numRuns: 1, seed: 5 });
    const list = [{ ...one!, attributes: Object.freeze({ 'server.ports': ports }) }];
    encodeTraceRequest(list);
    ports.push(3);
    const ours = Buffer.from(encodeTraceRequest(list)).toString('hex');
    const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(list) ?? new Uint8Array()).toString('hex');
    assert.equal(ours, sdk);
  });

  it("writes a lean span's times, kept in epoch milliseconds, as the SDK serializer writes their HrTime", () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new LeanTracerProvider(resource, new SimpleSpanProcessor(exporter), new AlwaysOnSampler()).getTracer(
      'content-service',
    );
    // Epoch milliseconds with fractions (the clock's reading, a statement's start and end), an HrTime, a Date.
    const millis = fc.double({ min: 1e12, max: 4e12, noNaN: true });
    const time = fc.oneof(
      millis,
      hrTime.map((t) => t as HrTime),
      millis.map((ms) => new Date(Math.floor(ms))),
    );
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.option(time, { nil: undefined }), fc.option(time, { nil: undefined })), {
          minLength: 1,
          maxLength: 6,
        }),
        (times) => {
          exporter.reset();
          for (const [start, end] of times) tracer.startSpan('timed', { startTime: start }).end(end);
          const spans = exporter.getFinishedSpans();
          const ours = Buffer.from(encodeTraceRequest(spans)).toString('hex');
          const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array()).toString('hex');
          assert.equal(ours, sdk);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("writes the SDK serializer's bytes for spans as the service makes them: ids copied from where they were drawn, shared attributes from a template", () => {
    const exporter = new InMemorySpanExporter();
    const tracer = new LeanTracerProvider(resource, new SimpleSpanProcessor(exporter), samplerFromEnv({})).getTracer(
      'content-service',
    );
    // Statements' and operations' frozen objects, shared by their spans; the same object under another name too.
    const shared = [
      Object.freeze({ 'db.system.name': 'sqlite', 'db.query.summary': 'SELECT users' }),
      Object.freeze({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Q'.repeat(200) }),
      Object.freeze({ 'db.query.text': 'select 1'.repeat(2100) }),
      Object.freeze({ 'server.ports': [1, 2] }),
    ];
    const child = fc.record({
      statement: fc.boolean(),
      attributes: fc.nat(shared.length - 1),
      name: fc.constantFrom('SELECT users', 'query Q', 'x'.repeat(130)),
      failed: fc.boolean(),
      extra: fc.boolean(),
    });
    const request = fc.record({
      remote: fc.option(fc.tuple(hex(16), hex(8), fc.constantFrom(TraceFlags.SAMPLED, TraceFlags.NONE)), {
        nil: undefined,
      }),
      children: fc.array(child, { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.array(request, { minLength: 1, maxLength: 4 }), (requests) => {
        exporter.reset();
        for (const { remote, children } of requests) {
          const under = remote
            ? trace.setSpanContext(ROOT_CONTEXT, {
                traceId: remote[0],
                spanId: remote[1],
                traceFlags: remote[2],
                isRemote: true,
              })
            : ROOT_CONTEXT;
          const server = startServerSpan(tracer, 'GET /api/users/:id', { 'url.path': '/api/users/7' }, under);
          const context = trace.setSpan(under, server);
          for (const made of children) {
            const attributes = shared[made.attributes]!;
            if (made.statement) {
              recordEndedSpan(
                tracer,
                context,
                server,
                made.name,
                SpanKind.CLIENT,
                1.7e12,
                1.7e12 + 2.5,
                attributes,
                made.failed,
              );
              continue;
            }
            const operation = startChildSpan(tracer, context, made.name, SpanKind.INTERNAL, attributes);
            if (made.extra) operation.setAttribute('extra', 1);
            if (made.failed) operation.setStatus({ code: SpanStatusCode.ERROR });
            operation.end();
          }
          server.setAttribute('http.response.status_code', 200);
          server.end();
        }
        const spans = exporter.getFinishedSpans();
        const ours = Buffer.from(encodeTraceRequest(spans)).toString('hex');
        const sdk = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) ?? new Uint8Array()).toString('hex');
        assert.equal(ours, sdk);
      }),
      { numRuns: 200 },
    );
  });

  it('writes a span whose ids are not hex, its attributes shared and frozen, as a message that reads back', () => {
    const [one] = fc.sample(span, { numRuns: 1, seed: 3 });
    const shared = Object.freeze({ 'db.query.summary': 'SELECT users' });
    const odd = {
      ...one!,
      spanContext: () => ({ traceId: 'not hex at all', spanId: 'zz', traceFlags: TraceFlags.SAMPLED }),
      parentSpanContext: undefined,
      attributes: shared,
      events: [],
      links: [],
      status: { code: SpanStatusCode.UNSET },
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
    const read = decodeTraceRequest(Buffer.from(encodeTraceRequest([odd, odd]))).resourceSpans[0]!.scopeSpans[0]!.spans;
    assert.equal(read.length, 2);
    assert.deepEqual(read[1]!.attributes, [{ key: 'db.query.summary', value: { stringValue: 'SELECT users' } }]);
  });

  it('writes hex as Buffer does, stopping at the first pair that is not hex', () => {
    for (const hex of ['00f067aa0ba902b7', '4BF92F3577B34DA6a3ce929d0e0e4736', '0aZZ11', 'abc', '', '12é4']) {
      const w = new Writer(64);
      w.hex(1, hex);
      const expected = Buffer.alloc(64);
      const written = expected.write(hex, 0, 'hex');
      assert.deepEqual([...w.buf.subarray(0, w.pos)], [0x0a, written, ...expected.subarray(0, written)], hex);
    }
  });

  it('is read back as the spans it was given (lengths past 127, 16,383 and 2,097,151 bytes, nanosecond times, negative integers)', () => {
    const long = 'x'.repeat(3_000_000);
    const spans = fc.sample(span, { numRuns: 1, seed: 7 }).map((one) => ({
      ...one,
      name: long,
      startTime: [1_764_200_000, 123_456_789] as HrTime,
      attributes: { 'db.query.text': 'é'.repeat(100), count: -5, big: 2 ** 60, ok: true },
    }));
    const decoded = decodeTraceRequest(Buffer.from(encodeTraceRequest(spans)));
    const read = decoded.resourceSpans[0]!.scopeSpans[0]!.spans[0]!;
    assert.equal(read.name, long);
    assert.equal(read.traceId, spans[0]!.spanContext().traceId);
    assert.equal(read.startTimeUnixNano, 1_764_200_000_123_456_789n);
    assert.deepEqual(read.attributes, [
      { key: 'db.query.text', value: { stringValue: 'é'.repeat(100) } },
      { key: 'count', value: { intValue: -5 } },
      { key: 'big', value: { intValue: 2 ** 60 } },
      { key: 'ok', value: { boolValue: true } },
    ]);
  });
});
