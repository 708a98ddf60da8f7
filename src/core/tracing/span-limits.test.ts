import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BasicTracerProvider,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-node';
import { LeanTracerProvider, recordEndedSpan, startChildSpan } from './lean-tracer.ts';
import { DEFAULT_SPAN_LIMITS, spanLimitsFromEnv, type SpanLimits } from './span-limits.ts';

const LOW: SpanLimits = {
  attributeCount: 2,
  attributeValueLength: 4,
  eventCount: 1,
  linkCount: 1,
  attributePerEventCount: 1,
  attributePerLinkCount: 1,
};

const link = (n: number) => ({
  context: { traceId: `${n}`.repeat(32), spanId: `${n}`.repeat(16), traceFlags: 1 },
  attributes: { first: 'abcdefgh', second: 'x' },
});

/** The same calls on a tracer, and what each ended span kept. */
function exercise(tracer: Tracer, exported: () => ReadableSpan[]) {
  const span = tracer.startSpan('s', { attributes: { a: 'abcdefgh', b: ['abcdef', 'gh'] }, links: [link(1)] });
  span.setAttribute('c', 'dropped: past the count');
  span.setAttribute('a', 'replaced');
  span.setAttribute('n', 12345678);
  span.addEvent('first', { k1: 'vvvvvv', k2: 'w' });
  span.addEvent('second', { k1: 'uuuuuu', k2: 'w' });
  span.addLinks([link(2), link(3)]);
  const under = trace.setSpan(ROOT_CONTEXT, span);
  const shared = Object.freeze({ 'db.query.text': 'select * from t', 'db.system.name': 'sqlite', third: 'x' });
  recordEndedSpan(
    tracer,
    under,
    span,
    'statement',
    SpanKind.CLIENT,
    1_700_000_000_000,
    1_700_000_000_001,
    shared,
    false,
  );
  startChildSpan(tracer, under, 'operation', SpanKind.INTERNAL, shared).end();
  span.end();
  assert.deepEqual(Object.keys(shared).length, 3, 'the shared attributes untouched');
  return exported().map((ended) => ({
    name: ended.name,
    attributes: ended.attributes,
    droppedAttributesCount: ended.droppedAttributesCount,
    events: ended.events.map((e) => ({ name: e.name, attributes: e.attributes, dropped: e.droppedAttributesCount })),
    droppedEventsCount: ended.droppedEventsCount,
    links: ended.links.map((l) => ({
      spanId: l.context.spanId,
      attributes: l.attributes,
      dropped: l.droppedAttributesCount,
    })),
    droppedLinksCount: ended.droppedLinksCount,
  }));
}

function ours(limits: SpanLimits) {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanTracerProvider(
    resourceFromAttributes({}),
    new SimpleSpanProcessor(exporter),
    new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    limits,
  );
  return exercise(provider.getTracer('t'), () => exporter.getFinishedSpans());
}

function sdks(limits: SpanLimits) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: {
      attributeCountLimit: limits.attributeCount,
      attributeValueLengthLimit: limits.attributeValueLength,
      eventCountLimit: limits.eventCount,
      linkCountLimit: limits.linkCount,
      attributePerEventCountLimit: limits.attributePerEventCount,
      attributePerLinkCountLimit: limits.attributePerLinkCount,
    },
  });
  return exercise(provider.getTracer('t'), () => exporter.getFinishedSpans());
}

describe('span limits', () => {
  it("keep what the SDK's span keeps under the same limits: counts, cut values, the oldest event and link giving way", () => {
    const low = ours(LOW);
    assert.deepEqual(low, sdks(LOW));
    const [statement, operation, span] = low;
    assert.deepEqual(span!.attributes, { a: 'repl', b: ['abcd', 'gh'] });
    assert.equal(span!.droppedAttributesCount, 2);
    assert.deepEqual(span!.events, [{ name: 'second', attributes: { k1: 'uuuu' }, dropped: 1 }]);
    assert.deepEqual(span!.links, [{ spanId: '3'.repeat(16), attributes: { first: 'abcd' }, dropped: 1 }]);
    assert.equal(span!.droppedLinksCount, 2);
    assert.deepEqual(statement!.attributes, { 'db.query.text': 'sele', 'db.system.name': 'sqli' });
    assert.deepEqual(operation!.attributes, statement!.attributes);
    assert.deepEqual(ours(DEFAULT_SPAN_LIMITS), sdks(DEFAULT_SPAN_LIMITS));
  });

  it("are read from the specification's variables with the SDK's precedence, the defaults otherwise", () => {
    assert.deepEqual(spanLimitsFromEnv({}), DEFAULT_SPAN_LIMITS);
    assert.deepEqual(
      spanLimitsFromEnv({
        OTEL_ATTRIBUTE_COUNT_LIMIT: '10',
        OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: '20',
        OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: '300',
        OTEL_SPAN_EVENT_COUNT_LIMIT: '5',
        OTEL_SPAN_LINK_COUNT_LIMIT: '0',
        OTEL_SPAN_ATTRIBUTE_PER_EVENT_COUNT_LIMIT: ' 7 ',
        OTEL_SPAN_ATTRIBUTE_PER_LINK_COUNT_LIMIT: 'many',
      }),
      {
        attributeCount: 20,
        attributeValueLength: 300,
        eventCount: 5,
        linkCount: 0,
        attributePerEventCount: 7,
        attributePerLinkCount: 128,
      },
    );
    assert.equal(spanLimitsFromEnv({ OTEL_ATTRIBUTE_COUNT_LIMIT: '10' }).attributeCount, 10);
    assert.equal(spanLimitsFromEnv({ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '-1' }).attributeValueLength, Infinity);
  });
});
