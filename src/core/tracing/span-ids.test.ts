import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PooledIdGenerator } from './span-ids.ts';

describe('span and trace ids from a pool', () => {
  it('are lowercase hex of 16 and 8 bytes, distinct, across many refills of the pool', () => {
    const ids = new PooledIdGenerator();
    const traceIds = new Set<string>();
    const spanIds = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const traceId = ids.generateTraceId();
      const spanId = ids.generateSpanId();
      assert.match(traceId, /^[0-9a-f]{32}$/);
      assert.match(spanId, /^[0-9a-f]{16}$/);
      traceIds.add(traceId);
      spanIds.add(spanId);
    }
    assert.equal(traceIds.size, 5000);
    assert.equal(spanIds.size, 5000);
  });

  it('skip an id of zeros, which W3C trace context forbids', () => {
    // The random source's first fill is all zeros, the next ones all 0xab.
    let fills = 0;
    const ids = new PooledIdGenerator((bytes) => bytes.fill(fills++ === 0 ? 0 : 0xab));
    assert.equal(ids.generateSpanId(), 'ab'.repeat(8));
    assert.equal(ids.generateTraceId(), 'ab'.repeat(16));
    assert.equal(fills, 2);
  });

  it("keep each id's bytes where it was drawn, unchanged by later refills of the pool", () => {
    const ids = new PooledIdGenerator();
    const drawn: { id: string; bytes: Buffer; offset: number; length: number }[] = [];
    for (let i = 0; i < 1000; i++) {
      const traceId = ids.generateTraceId();
      drawn.push({ id: traceId, bytes: ids.bytes, offset: ids.offset, length: 16 });
      const spanId = ids.generateSpanId();
      drawn.push({ id: spanId, bytes: ids.bytes, offset: ids.offset, length: 8 });
    }
    for (const { id, bytes, offset, length } of drawn) {
      assert.equal(bytes.toString('hex', offset, offset + length), id);
    }
  });
});
