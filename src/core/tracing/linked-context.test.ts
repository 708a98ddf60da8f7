import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createContextKey, ROOT_CONTEXT, trace, type Context } from '@opentelemetry/api';
import fc from 'fast-check';
import { LINKED_ROOT, linkedOver } from './linked-context.ts';

const keys = [createContextKey('a'), createContextKey('b'), createContextKey('c')];
const step = fc.record({
  key: fc.nat(keys.length - 1),
  remove: fc.boolean(),
  value: fc.oneof(fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null)),
});

describe('tracing: the linked context', () => {
  it("reads every key as the API's own context does, after any sequence of sets and deletes", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 12 }), fc.boolean(), (steps, fromBase) => {
        // From the root, or from a context of the API's that already holds a value.
        const base = fromBase ? ROOT_CONTEXT.setValue(keys[0]!, 'base') : ROOT_CONTEXT;
        let theirs: Context = base;
        let ours: Context = linkedOver(base);
        for (const { key, remove, value } of steps) {
          theirs = remove ? theirs.deleteValue(keys[key]!) : theirs.setValue(keys[key]!, value);
          ours = remove ? ours.deleteValue(keys[key]!) : ours.setValue(keys[key]!, value);
          for (const read of keys) assert.equal(ours.getValue(read), theirs.getValue(read));
        }
      }),
    );
  });

  it('leaves the context it grew from unchanged, so a span set on it is only in the new one', () => {
    const span = trace.wrapSpanContext({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 1 });
    const withSpan = trace.setSpan(LINKED_ROOT, span);
    assert.equal(trace.getSpan(withSpan), span);
    assert.equal(trace.getSpan(LINKED_ROOT), undefined);
    assert.equal(linkedOver(ROOT_CONTEXT), LINKED_ROOT);
    assert.equal(linkedOver(withSpan), withSpan);
  });
});
