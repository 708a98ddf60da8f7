import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { newEventId, toFeedEvent } from './event.ts';

describe('events: a new event id', () => {
  it('is a UUIDv7 with its time first, so new ids enter the event_id index at its right edge', () => {
    const before = Date.now();
    const ids = Array.from({ length: 1000 }, () => newEventId());
    const after = Date.now();
    assert.equal(new Set(ids).size, ids.length, 'unique');
    let previous = 0;
    for (const id of ids) {
      assert.match(id, /^evt_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const millis = parseInt(id.slice(4, 17).replace('-', ''), 16);
      // Within a second of its creation (a generator may step its clock ahead within a millisecond).
      assert.ok(millis >= before - 1000 && millis <= after + 1000, `${id}: ${millis} is its creation time`);
      assert.ok(millis >= previous, 'later ids never carry an earlier time');
      previous = millis;
    }
  });

  it("is sent as exactly JSON.stringify of the event, made from the stored data's text without parsing it, with an import's id when it has one", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.jsonValue()),
        fc.string(),
        fc.option(fc.nat()),
        (data, text, importId) => {
          const stored = JSON.stringify({ ...data, text });
          const item = toFeedEvent({
            seq: 7,
            tx: 3,
            event_id: newEventId(),
            type: 'post.created',
            resource: 'post:1',
            data: stored,
            created_at: '2026-11-25T20:00:00.000Z',
            traceparent: null,
            tracestate: null,
            import_id: importId,
          });
          assert.equal(item.json, JSON.stringify(item.event));
          assert.deepEqual(JSON.parse(item.json).data, JSON.parse(stored));
          // An imported row's event carries `importId` beside `data` (DECISIONS §18); any other has no such key.
          assert.equal(JSON.parse(item.json).importId, importId ?? undefined);
        },
      ),
    );
  });
});
