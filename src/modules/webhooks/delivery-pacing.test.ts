import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLAIM_AHEAD, createPacing, FAST_ANSWER_MS, FAST_IN_FLIGHT } from './delivery-pacing.ts';

/** A delivery as the pacing sees it: the endpoint it goes to, and a name to follow it by. */
interface Item {
  endpoint: number;
  name: string;
}
const items = (endpoint: number, count: number, from = 0): Item[] =>
  Array.from({ length: count }, (_, i) => ({ endpoint, name: `${endpoint}.${from + i}` }));
const always = () => true;

function pacing(concurrency: number, perEndpoint: number) {
  return createPacing<Item>({ concurrency, perEndpoint, endpointOf: (item) => item.endpoint });
}

/** Makes `endpoint` fast in `p`: one delivery sent and answered quickly. */
function answerFast(p: ReturnType<typeof pacing>, endpoint: number): void {
  p.queue(items(endpoint, 1, 1000));
  const [sent] = p.take(always).send;
  p.answered(sent!, FAST_ANSWER_MS / 10);
}

describe('webhook delivery pacing: claim-ahead and per-endpoint slots', () => {
  it('sends an unknown (or slow) endpoint at most perEndpoint at once, and in line order', () => {
    const p = pacing(10, 2);
    p.queue(items(1, 5));
    assert.deepEqual(
      p.take(always).send.map((item) => item.name),
      ['1.0', '1.1'],
    );
    assert.deepEqual(p.take(always).send, [], 'no slot is free until one answers');
    p.answered({ endpoint: 1, name: '1.0' }, FAST_ANSWER_MS * 4);
    assert.deepEqual(
      p.take(always).send.map((item) => item.name),
      ['1.2'],
    );
  });

  it('gives a claim room of perEndpoint for a new or slow endpoint and CLAIM_AHEAD times that for a fast one', () => {
    const p = pacing(10, 2);
    answerFast(p, 1);
    p.queue(items(2, 1));
    const slow = p.take(always).send[0]!;
    p.answered(slow, FAST_ANSWER_MS * 2);
    const room = p.room('me')!;
    assert.equal(room.holder, 'me');
    assert.equal(room.perEndpoint, 2, 'an endpoint not yet seen gets perEndpoint');
    assert.equal(room.room.get(1), 2 * CLAIM_AHEAD);
    assert.equal(room.room.get(2), 2);
    assert.equal(room.limit, 10 * CLAIM_AHEAD);
  });

  it('lets a fast endpoint have FAST_IN_FLIGHT times perEndpoint in flight, the ones beyond its first in the extra slots', () => {
    const p = pacing(10, 2);
    answerFast(p, 1);
    p.queue(items(1, 20));
    // Extra slots: half of the concurrency, 5; a fast endpoint: min(2 × 4, 2 + 5) = 7 in flight.
    assert.equal(p.take(always).send.length, Math.min(2 * FAST_IN_FLIGHT, 2 + 5));
  });

  it('keeps the first kind of slots for every endpoint: fast endpoints hanging together hold only perEndpoint each of them', () => {
    // Three slots of the first kind, one extra: two fast endpoints hang with everything they may have.
    const p = pacing(3, 1);
    answerFast(p, 1);
    answerFast(p, 2);
    p.queue([...items(1, 8), ...items(2, 8)]);
    const hanging = p.take(always).send;
    assert.equal(hanging.length, 3, 'one first slot each and the one extra slot');
    // A third endpoint still gets a first slot while they hang.
    p.queue(items(3, 1));
    assert.deepEqual(
      p.take(always).send.map((item) => item.name),
      ['3.0'],
    );
  });

  it('says when an endpoint has run down to half of what it may hold (time to claim again), not after every answer', () => {
    const p = pacing(10, 1);
    answerFast(p, 1);
    p.queue(items(1, CLAIM_AHEAD));
    const sent = p.take(always).send;
    assert.equal(p.answered(sent[0]!, 1), false, 'most of its claimed deliveries still wait');
    let low = false;
    while (!low) {
      const next = p.take(always).send;
      assert.ok(next.length > 0, 'ran out without asking for a claim');
      low = p.answered(next[0]!, 1);
    }
    assert.ok(p.held() <= CLAIM_AHEAD / 2);
  });

  it('sets apart deliveries whose lease is too short for an attempt, and fills their slots with the next ones', () => {
    const p = pacing(10, 2);
    p.queue(items(1, 4));
    const { send, expired } = p.take((item) => item.name !== '1.0');
    assert.deepEqual(
      expired.map((item) => item.name),
      ['1.0'],
    );
    assert.deepEqual(
      send.map((item) => item.name),
      ['1.1', '1.2'],
    );
    assert.equal(p.held(), 3);
  });

  it('reports the endpoints a claim filled, has no room when the process holds all it may, and drains what waits', () => {
    const p = pacing(1, 1);
    const filled = p.queue(items(7, CLAIM_AHEAD));
    assert.deepEqual([...filled], [7]);
    assert.equal(p.room('me'), undefined);
    p.take(always);
    assert.equal(p.sending(), 1);
    assert.equal(p.drain().length, CLAIM_AHEAD - 1);
    assert.equal(p.held(), 1, 'the one in flight stays until it answers');
  });
});
