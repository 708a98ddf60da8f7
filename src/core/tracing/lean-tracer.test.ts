import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes } from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SamplingDecision,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import { LeanTracerProvider, recordEndedSpan, startChildSpan } from './lean-tracer.ts';
import { followsLocalParent, samplerFromEnv, samplesEveryRoot } from './sampler-from-env.ts';

/** A tracer whose ended spans land in the SDK's in-memory exporter, through the SDK's simple processor. */
function tracerWith(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanTracerProvider(
    resourceFromAttributes({ 'service.name': 'lean-test' }),
    new SimpleSpanProcessor(exporter),
    sampler,
  );
  return { tracer: provider.getTracer('lean-test', '1.0.0'), exported: () => exporter.getFinishedSpans() };
}

const remoteParent = (flags: TraceFlags) =>
  trace.setSpanContext(ROOT_CONTEXT, {
    traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
    spanId: '00f067aa0ba902b7',
    traceFlags: flags,
    isRemote: true,
  });

describe('the lean tracer', () => {
  it("starts a root in a new trace and a child in its parent's, and hands each ended span to the processor once", () => {
    const { tracer, exported } = tracerWith();
    const root = tracer.startSpan('root', { kind: SpanKind.SERVER });
    const child = tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root));
    child.end();
    child.end();
    root.end();
    const [first, second] = exported();
    assert.equal(exported().length, 2);
    assert.equal(first!.name, 'child');
    assert.equal(first!.spanContext().traceId, root.spanContext().traceId);
    assert.equal(first!.parentSpanContext?.spanId, root.spanContext().spanId);
    assert.equal(second!.parentSpanContext, undefined);
    assert.equal(second!.kind, SpanKind.SERVER);
    assert.equal(second!.instrumentationScope.name, 'lean-test');
    assert.equal(second!.resource.attributes['service.name'], 'lean-test');
    for (const span of [first!, second!]) {
      assert.match(span.spanContext().traceId, /^(?!0+$)[0-9a-f]{32}$/);
      assert.match(span.spanContext().spanId, /^(?!0+$)[0-9a-f]{16}$/);
      assert.equal(span.spanContext().traceFlags, TraceFlags.SAMPLED);
    }
    assert.notEqual(first!.spanContext().spanId, second!.spanContext().spanId);
  });

  it('keeps given times (epoch milliseconds since the process started, as the SDK reads them) as HrTime, and a duration', () => {
    const { tracer, exported } = tracerWith();
    const start = (Math.floor(Date.now() / 1000) + 1) * 1000 + 250;
    tracer.startSpan('timed', { startTime: start }).end(start + 12.5);
    const [span] = exported();
    assert.deepEqual(span!.startTime, [Math.floor(start / 1000), 250_000_000]);
    assert.deepEqual(span!.endTime, [Math.floor(start / 1000), 262_500_000]);
    assert.deepEqual(span!.duration, [0, 12_500_000]);
    tracer.startSpan('backwards', { startTime: start }).end(start - 5);
    const backwards = exported()[1]!;
    assert.deepEqual([backwards.endTime, backwards.duration], [backwards.startTime, [0, 0]], 'an end before the start');
  });

  it('keeps valid attributes only, copies arrays, counts what passes the limit, and changes nothing once ended', () => {
    const { tracer, exported } = tracerWith();
    const list = ['a', 'b'];
    const span = tracer.startSpan('attributes', {
      attributes: { kept: 'yes', nothing: undefined, object: { no: 1 } as unknown as string, list },
    });
    span.setAttribute('empty', null as unknown as string);
    span.setAttribute('__proto__', 'polluting');
    span.setAttribute('toString', 'a key like any other');
    list.push('c');
    for (let i = 0; i < 130; i++) span.setAttribute(`extra.${i}`, i);
    span.setAttribute('kept', 'still');
    span.end();
    span.setAttribute('late', true);
    const [ended] = exported();
    const attributes = ended!.attributes as Attributes;
    assert.equal(attributes.kept, 'still');
    assert.deepEqual(attributes.list, ['a', 'b']);
    assert.ok(!('nothing' in attributes) && !('object' in attributes) && !('late' in attributes));
    assert.ok(!Object.hasOwn(attributes, 'empty') && Object.getPrototypeOf(attributes) === Object.prototype);
    assert.equal(attributes.toString, 'a key like any other');
    assert.equal(Object.keys(attributes).length, 128);
    assert.equal(ended!.droppedAttributesCount, 5);

    // An own `__proto__` key (as JSON.parse makes one) given at the start: dropped, the prototype untouched.
    tracer.startSpan('own proto', { attributes: JSON.parse('{"__proto__": "x", "ok": 1, "gone": null}') }).end();
    const own = exported()[1]!.attributes as Attributes;
    assert.deepEqual(Object.keys(own), ['ok']);
    assert.equal(Object.getPrototypeOf(own), Object.prototype);
  });

  it('keeps the status as the SDK does: UNSET changes nothing, OK is final, a message only with ERROR', () => {
    const { tracer, exported } = tracerWith();
    const failed = tracer.startSpan('failed');
    failed.setStatus({ code: SpanStatusCode.ERROR, message: 'boom' });
    failed.setStatus({ code: SpanStatusCode.UNSET });
    failed.end();
    const ok = tracer.startSpan('ok');
    ok.setStatus({ code: SpanStatusCode.OK, message: 'ignored' });
    ok.setStatus({ code: SpanStatusCode.ERROR });
    ok.end();
    assert.deepEqual(
      exported().map((span) => span.status),
      [{ code: SpanStatusCode.ERROR, message: 'boom' }, { code: SpanStatusCode.OK }],
    );
  });

  it('records an exception as an event, and links given at the start', () => {
    const { tracer, exported } = tracerWith();
    const other = tracer.startSpan('other');
    const span = tracer.startSpan('with', { links: [{ context: other.spanContext() }] });
    span.recordException(new TypeError('bad'));
    span.end();
    const [ended] = exported();
    assert.equal(ended!.links[0]!.context.spanId, other.spanContext().spanId);
    assert.equal(ended!.events[0]!.name, 'exception');
    assert.equal(ended!.events[0]!.attributes!['exception.type'], 'TypeError');
  });

  it("follows a remote parent's sampling under the default sampler: a caller's unsampled trace records nothing", () => {
    const { tracer, exported } = tracerWith();
    const unsampled = tracer.startSpan('unsampled', {}, remoteParent(TraceFlags.NONE));
    assert.equal(unsampled.isRecording(), false);
    assert.equal(unsampled.spanContext().traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
    unsampled.end();
    const sampled = tracer.startSpan('sampled', {}, remoteParent(TraceFlags.SAMPLED));
    sampled.end();
    assert.deepEqual(
      exported().map((span) => [span.name, span.parentSpanContext?.spanId]),
      [['sampled', '00f067aa0ba902b7']],
    );
  });

  it("decides a child of its own span by the parent's decision under a parent-based sampler, and asks any other sampler", () => {
    // Roots unsampled (ratio 0); a sampled remote parent makes a sampled root, with the caller's trace state.
    const env = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' };
    const { tracer, exported } = tracerWith(samplerFromEnv(env));
    const remote = trace.setSpanContext(ROOT_CONTEXT, {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: true,
      traceState: new TraceState('vendor=a'),
    });
    const server = tracer.startSpan('server', {}, remote);
    tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, server)).end();
    const unsampledRoot = tracer.startSpan('root');
    tracer.startSpan('orphan', {}, trace.setSpan(ROOT_CONTEXT, unsampledRoot)).end();
    server.end();
    assert.deepEqual(
      exported().map((span) => [span.name, span.spanContext().traceFlags, span.spanContext().traceState?.serialize()]),
      [
        ['child', TraceFlags.SAMPLED, 'vendor=a'],
        ['server', TraceFlags.SAMPLED, 'vendor=a'],
      ],
    );

    // A sampler of another kind is asked for every span, a child of a sampled local parent too.
    const picky: Sampler = {
      shouldSample: (_context, _traceId, name) => ({
        decision: name === 'child' ? SamplingDecision.NOT_RECORD : SamplingDecision.RECORD_AND_SAMPLED,
      }),
      toString: () => 'picky',
    };
    const other = tracerWith(picky);
    const parent = other.tracer.startSpan('parent');
    const child = other.tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, parent));
    assert.equal(child.isRecording(), false);
  });

  it('records a span already over as startSpan then end would, made directly under its own parent', () => {
    const attributes = { 'db.system.name': 'sqlite', 'db.query.text': 'select 1' };
    const made = (sampler: Sampler) => {
      const { tracer, exported } = tracerWith(sampler);
      const parent = tracer.startSpan('parent');
      const under = trace.setSpan(ROOT_CONTEXT, parent);
      recordEndedSpan(
        tracer,
        under,
        parent,
        'ok',
        SpanKind.CLIENT,
        1_700_000_000_000,
        1_700_000_000_002.5,
        attributes,
        false,
      );
      recordEndedSpan(
        tracer,
        under,
        parent,
        'failed',
        SpanKind.CLIENT,
        1_700_000_000_003,
        1_700_000_000_001,
        attributes,
        true,
      );
      return exported().map((span) => ({
        name: span.name,
        kind: span.kind,
        parent: span.parentSpanContext?.spanId === parent.spanContext().spanId,
        trace: span.spanContext().traceId === parent.spanContext().traceId,
        flags: span.spanContext().traceFlags,
        times: [span.startTime, span.endTime],
        attributes: span.attributes,
        status: span.status,
      }));
    };
    const direct = made(samplerFromEnv({}));
    // The SDK's own ParentBasedSampler is not one of samplerFromEnv's: the tracer asks it, through startSpan.
    assert.deepEqual(direct, made(new ParentBasedSampler({ root: new AlwaysOnSampler() })));
    assert.deepEqual(direct[0], {
      name: 'ok',
      kind: SpanKind.CLIENT,
      parent: true,
      trace: true,
      flags: TraceFlags.SAMPLED,
      times: [
        [1_700_000_000, 0],
        [1_700_000_000, 2_500_000],
      ],
      attributes,
      status: { code: SpanStatusCode.UNSET },
    });
    assert.deepEqual(direct[1]!.times, [
      [1_700_000_000, 3_000_000],
      [1_700_000_000, 3_000_000],
    ]);
    assert.deepEqual(direct[1]!.status, { code: SpanStatusCode.ERROR });
  });

  it('starts a child as startSpan would, made directly under its own parent, its shared frozen attributes copied on a change', () => {
    const shared = Object.freeze({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'Q' });
    const made = (sampler: Sampler, parentFlags?: TraceFlags) => {
      const { tracer, exported } = tracerWith(sampler);
      const parent =
        parentFlags === undefined
          ? tracer.startSpan('parent')
          : trace.wrapSpanContext({
              traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
              spanId: '00f067aa0ba902b7',
              traceFlags: parentFlags,
            });
      const under = trace.setSpan(ROOT_CONTEXT, parent);
      const first = startChildSpan(tracer, under, 'query Q', SpanKind.INTERNAL, shared);
      const second = startChildSpan(tracer, under, 'query Q', SpanKind.INTERNAL, shared);
      first.setAttribute('extra', 1);
      first.end();
      second.end();
      assert.equal(first.spanContext().traceId, parent.spanContext().traceId);
      assert.notEqual(first.spanContext().spanId, second.spanContext().spanId);
      return exported().map((span) => ({
        name: span.name,
        kind: span.kind,
        parent: span.parentSpanContext?.spanId === parent.spanContext().spanId,
        flags: span.spanContext().traceFlags,
        attributes: span.attributes,
      }));
    };
    const direct = made(samplerFromEnv({}));
    assert.deepEqual(direct, made(new ParentBasedSampler({ root: new AlwaysOnSampler() })));
    assert.deepEqual(direct, [
      {
        name: 'query Q',
        kind: SpanKind.INTERNAL,
        parent: true,
        flags: TraceFlags.SAMPLED,
        attributes: { ...shared, extra: 1 },
      },
      { name: 'query Q', kind: SpanKind.INTERNAL, parent: true, flags: TraceFlags.SAMPLED, attributes: shared },
    ]);
    assert.deepEqual(
      shared,
      { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Q' },
      'the shared object unchanged',
    );
    // Under a parent that is not sampled (here not ours): nothing recorded, as startSpan.
    assert.deepEqual(made(samplerFromEnv({}), TraceFlags.NONE), []);
  });

  it('decides a child of its own unsampled span by that span, without asking the sampler again (a share of traces kept)', () => {
    const sampler = samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' });
    let asked = 0;
    const shouldSample = sampler.shouldSample.bind(sampler);
    sampler.shouldSample = (...args) => {
      asked++;
      return shouldSample(...args);
    };
    const { tracer, exported } = tracerWith(sampler);
    const root = tracer.startSpan('GET /api/users/:id', { kind: SpanKind.SERVER });
    assert.equal(asked, 1, "the root is the sampler's to decide");
    const under = trace.setSpan(ROOT_CONTEXT, root);
    const operation = startChildSpan(tracer, under, 'query Q', SpanKind.INTERNAL, Object.freeze({}));
    recordEndedSpan(tracer, under, root, 'SELECT users', SpanKind.CLIENT, 1.7e12, 1.7e12 + 1, Object.freeze({}), false);
    const nested = tracer.startSpan('nested', {}, trace.setSpan(ROOT_CONTEXT, operation));
    assert.equal(asked, 1, 'its children follow it');
    for (const child of [operation, nested]) {
      assert.equal(child.isRecording(), false);
      assert.equal(child.spanContext().traceId, root.spanContext().traceId);
      assert.notEqual(child.spanContext().spanId, root.spanContext().spanId);
      assert.equal(child.spanContext().traceFlags, TraceFlags.NONE);
    }
    operation.end();
    nested.end();
    root.end();
    assert.deepEqual(exported(), []);
  });

  it('makes no span under always_off or a ratio of 0, and a child of a non-recording span records nothing', () => {
    for (const sampler of [new AlwaysOffSampler(), new TraceIdRatioBasedSampler(0)]) {
      const { tracer, exported } = tracerWith(sampler);
      const root = tracer.startSpan('root');
      tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root)).end();
      root.end();
      assert.equal(root.isRecording(), false);
      assert.deepEqual(exported(), []);
    }
  });
});

describe('the sampler of OTEL_TRACES_SAMPLER', () => {
  it('names each of the specification, defaults to parentbased_always_on, and reads the ratio argument', () => {
    const described = (env: NodeJS.ProcessEnv) => samplerFromEnv(env).toString();
    assert.equal(
      described({}),
      'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    assert.equal(described({ OTEL_TRACES_SAMPLER: 'always_on' }), 'AlwaysOnSampler');
    assert.equal(described({ OTEL_TRACES_SAMPLER: 'always_off' }), 'AlwaysOffSampler');
    assert.equal(
      described({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }),
      'TraceIdRatioBased{0.25}',
    );
    assert.equal(
      described({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: 'lots' }),
      'TraceIdRatioBased{1}',
    );
    assert.match(
      described({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' }),
      /^ParentBased\{root=TraceIdRatioBased\{0\.5\}/,
    );
    assert.match(described({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }), /^ParentBased\{root=AlwaysOffSampler/);
    assert.equal(described({ OTEL_TRACES_SAMPLER: 'nonsense' }), described({}));
  });

  it('lets a local parent decide in the parent-based ones only, whose local delegates are always on and always off', () => {
    for (const name of [undefined, 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']) {
      const sampler = samplerFromEnv(name ? { OTEL_TRACES_SAMPLER: name } : {});
      assert.equal(followsLocalParent(sampler), true, String(name));
      assert.match(sampler.toString(), /localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler\}$/);
    }
    for (const name of ['always_on', 'always_off', 'traceidratio'])
      assert.equal(followsLocalParent(samplerFromEnv({ OTEL_TRACES_SAMPLER: name })), false, name);
    assert.equal(followsLocalParent(new ParentBasedSampler({ root: new AlwaysOnSampler() })), false);
  });

  it('is known to keep every root span only when it answers so: always_on and parentbased_always_on', () => {
    const names = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off'];
    for (const name of [undefined, ...names, 'parentbased_traceidratio']) {
      const sampler = samplerFromEnv(name ? { OTEL_TRACES_SAMPLER: name, OTEL_TRACES_SAMPLER_ARG: '0.5' } : {});
      const kept = samplesEveryRoot(sampler);
      assert.equal(kept, [undefined, 'always_on', 'parentbased_always_on'].includes(name), String(name));
      if (!kept) continue;
      for (let i = 0; i < 20; i++) {
        const traceId = randomBytes(16).toString('hex');
        assert.deepEqual(sampler.shouldSample(ROOT_CONTEXT, traceId, 'root', SpanKind.SERVER, {}, []), {
          decision: SamplingDecision.RECORD_AND_SAMPLED,
        });
      }
    }
    assert.equal(samplesEveryRoot(new AlwaysOnSampler()), false, 'not one of samplerFromEnv');
  });
});
