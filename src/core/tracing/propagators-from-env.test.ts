import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { propagation, trace } from '@opentelemetry/api';
import { contextUnder } from './client-spans.ts';
import { propagatorsFromEnv } from './propagators-from-env.ts';

describe('propagators of OTEL_PROPAGATORS', () => {
  it('are W3C trace context and baggage by default, the ones named otherwise, none with none, and say which they lack', () => {
    const fields = (value?: string) => {
      const chosen = propagatorsFromEnv(value === undefined ? {} : { OTEL_PROPAGATORS: value });
      return { fields: chosen.propagator.fields(), unknown: chosen.unknown };
    };
    assert.deepEqual(fields(), { fields: ['traceparent', 'tracestate', 'baggage'], unknown: [] });
    assert.deepEqual(fields(' '), { fields: ['traceparent', 'tracestate', 'baggage'], unknown: [] });
    assert.deepEqual(fields('baggage'), { fields: ['baggage'], unknown: [] });
    assert.deepEqual(fields('TraceContext, b3 ,tracecontext'), {
      fields: ['traceparent', 'tracestate'],
      unknown: ['b3'],
    });
    assert.deepEqual(fields('none'), { fields: [], unknown: [] });
    assert.deepEqual(fields('tracecontext,none'), { fields: [], unknown: [] });
  });

  it("read an event's kept trace context back whatever goes on the wire", () => {
    propagation.setGlobalPropagator(propagatorsFromEnv({ OTEL_PROPAGATORS: 'none' }).propagator);
    try {
      const traceparent = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01`;
      const kept = trace.getSpanContext(contextUnder({ traceparent }));
      assert.equal(kept?.traceId, 'c'.repeat(32));
      assert.equal(kept?.spanId, 'd'.repeat(16));
      assert.equal(kept?.isRemote, true);
    } finally {
      propagation.disable();
    }
  });
});
