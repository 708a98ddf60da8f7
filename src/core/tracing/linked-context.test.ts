import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createContextKey, ROOT_CONTEXT, trace, type Context, type Span } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import fc from 'fast-check';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { enterOperation, enterSpan, LINKED_ROOT, linkedOver, operationParent, RequestSlot } from './linked-context.ts';

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

const spanNamed = (id: string): Span =>
  trace.wrapSpanContext({ traceId: 'a'.repeat(32), spanId: id.repeat(16), traceFlags: 1 });
const REQUEST = spanNamed('1');
const OPERATION = spanNamed('2');
const SIBLING = spanNamed('3');

describe("tracing: a request's operation in the request's slot", () => {
  const contexts = new AsyncLocalStorageContextManager().enable();
  const activeId = () => trace.getSpan(contexts.active())?.spanContext().spanId;
  /** The span active a turn later in what starts now. */
  const activeNextTurn = async () => {
    await nextTurn();
    return activeId();
  };
  /** `run` as a request's handler: after the request's first hook entered its span. */
  const inRequest = (run: () => Promise<void>, streaming = false) =>
    contexts.with(ROOT_CONTEXT, async () => {
      enterSpan(contexts, ROOT_CONTEXT, REQUEST, streaming);
      await run();
    });

  it("is the operation's span in everything it starts until its answer is in, the request's again after, with no frame of its own", async () => {
    await inRequest(async () => {
      const slot = contexts.active();
      assert.ok(slot instanceof RequestSlot, "the request's frame holds its slot");
      assert.equal(trace.getSpan(operationParent(slot)), REQUEST);
      const scope = enterOperation(contexts, slot, OPERATION);
      const started = activeNextTurn();
      scope.returned();
      assert.equal(contexts.active(), slot, 'no frame entered');
      assert.equal(activeId(), OPERATION.spanContext().spanId, 'until its answer is in');
      assert.equal(await started, OPERATION.spanContext().spanId);
      scope.settled();
      assert.equal(activeId(), REQUEST.spanContext().spanId);
      assert.equal(await activeNextTurn(), REQUEST.spanContext().spanId, 'the request once its answer is in');
    });
  });

  it('starts a second operation, while the first holds the slot, as its sibling in a frame of its own', async () => {
    await inRequest(async () => {
      const first = enterOperation(contexts, contexts.active(), OPERATION);
      const under = contexts.active();
      assert.equal(trace.getSpan(operationParent(under)), REQUEST, "the request's span, not the first operation's");
      const second = enterOperation(contexts, under, SIBLING);
      const startedBySecond = activeNextTurn();
      second.returned();
      assert.equal(activeId(), OPERATION.spanContext().spanId, "the first's once the second's function returned");
      assert.equal(await startedBySecond, SIBLING.spanContext().spanId);
      second.settled();
      first.settled();
      assert.equal(activeId(), REQUEST.spanContext().spanId);
    });
  });

  it("keeps, in a context made from the slot, the operation's span it held then", async () => {
    await inRequest(async () => {
      const scope = enterOperation(contexts, contexts.active(), OPERATION);
      const key = createContextKey('kept');
      const made = contexts.active().setValue(key, 'v');
      const linked = linkedOver(contexts.active());
      scope.settled();
      assert.equal(trace.getSpan(made), OPERATION);
      assert.equal(made.getValue(key), 'v');
      assert.equal(trace.getSpan(linked), OPERATION);
    });
  });

  it("gives an event stream's request no slot: each of its operations enters a frame and leaves it", async () => {
    await inRequest(async () => {
      const before = contexts.active();
      assert.ok(!(before instanceof RequestSlot));
      const scope = enterOperation(contexts, before, OPERATION);
      const started = activeNextTurn();
      assert.equal(activeId(), OPERATION.spanContext().spanId);
      scope.returned();
      assert.equal(activeId(), REQUEST.spanContext().spanId, 'left once its function returned');
      assert.equal(await started, OPERATION.spanContext().spanId);
      scope.settled();
    }, true);
  });
});
