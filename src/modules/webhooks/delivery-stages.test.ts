import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { Db } from '../../core/db/database.ts';
import type { EventType, FeedEvent } from '../events/event.ts';
import { claimDue } from './delivery-claim.ts';
import { fanOutBatch } from './delivery-fan-out.ts';
import { createSuccessLog } from './delivery-successes.ts';
import { createWebhookMetrics } from './webhook-metrics.ts';

/**
 * The fan-out and claim stages on their own, against the real tables: what a batch of events makes
 * (one delivery per subscribed endpoint, the heads of their lines claimed for the worker with room, no
 * copy of the event in any row), and what a claim then takes (the head of each line only, within the
 * room, with its event's JSON read from the outbox). The server runs as the API role (no workers), and
 * the events here are placed far past the server's own, so the stages here are the only ones at work.
 */
const AT = (minute: number) => new Date(Date.UTC(2026, 10, 28, 10, minute)).toISOString();
const LEASE_MS = 60_000;
const METRICS = createWebhookMetrics();
/** The events' place in the feed: far past whatever the server wrote itself. */
const SEQ = 1_000_000;

function feedEvent(minute: number, type: EventType, resource: string): FeedEvent {
  const event = {
    id: `evt_stage_${minute}`,
    type,
    timestamp: AT(minute),
    data: { id: minute, name: `n\u00e9 ${minute}` },
  };
  const position = { tx: 0, seq: SEQ + minute };
  return { event, json: JSON.stringify(event), cursor: String(position.seq), position, resource };
}

/** The outbox's row of `item` (as the events module writes it). */
const eventRow = (item: FeedEvent) => ({
  seq: item.position.seq,
  tx: item.position.tx,
  event_id: item.event.id,
  type: item.event.type,
  resource: item.resource,
  data: JSON.stringify(item.event.data),
  created_at: item.event.timestamp,
});

for (const dialect of DIALECTS) {
  describe(`webhook delivery stages: fan-out and claim (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let db: Db;
    const endpoints: number[] = [];
    before(async () => {
      // The API role runs no worker: the server's own delivery worker, whose first poll could come at any time
      // after start, would otherwise claim (and try) a delivery a test expects to claim itself.
      t = await startTestServer(dialect, { PROCESS_ROLE: 'api' });
      db = t.server.db;
      // Endpoint 0 takes every event; endpoint 1 only comments.
      for (const [port, events] of [
        [9, '["*"]'],
        [10, '["comment.created"]'],
      ] as const) {
        const { id } = await db
          .insertInto('webhook_endpoints')
          .values({
            url: `http://127.0.0.1:${port}/`,
            events,
            status: 'enabled',
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
            created_at: AT(0),
            updated_at: AT(0),
          } as never)
          .returning('id')
          .executeTakeFirstOrThrow();
        endpoints.push(Number(id));
      }
    });
    after(() => t?.close());

    const batch = [
      feedEvent(1, 'product.created', 'product:1'),
      feedEvent(2, 'product.updated', 'product:1'),
      feedEvent(3, 'comment.created', 'comment:1'),
    ];

    it('makes one delivery per subscribed endpoint, claiming the head of each line for the worker within its room', async () => {
      await db.insertInto('events').values(batch.map(eventRow)).execute();
      const room = { holder: 'stage-test', limit: 10, room: new Map<number, number>(), perEndpoint: 4 };
      const done = await db.transaction().execute((trx) => fanOutBatch(trx, batch, room, LEASE_MS));
      // Endpoint 0: three events; endpoint 1: the comment.
      assert.equal(done.made, 4);
      assert.equal(done.targets, 2);
      // product:1's second event waits behind its first; the rest are heads of their lines.
      assert.deepEqual(done.claimed.map((c) => `${c.endpoint.id} ${c.row.event_id}`).sort(), [
        `${endpoints[0]} evt_stage_1`,
        `${endpoints[0]} evt_stage_3`,
        `${endpoints[1]} evt_stage_3`,
      ]);
      assert.equal(done.left, 1);
      for (const claimed of done.claimed) {
        assert.equal(claimed.row.claimed_by, 'stage-test');
        // Handed to the worker with the batch's own JSON, in memory.
        assert.equal(claimed.payload, batch.find((item) => item.event.id === claimed.row.event_id)!.json);
      }
      // Run again (a fan-out repeated after a crash), nothing is made twice.
      await db.transaction().execute((trx) => fanOutBatch(trx, batch, undefined, LEASE_MS));
      const rows = await db.selectFrom('webhook_deliveries').select(['id', 'payload']).execute();
      assert.equal(rows.length, 4);
      // No row holds a copy of its event: the claim reads it from the outbox.
      assert.deepEqual(
        rows.map((row) => row.payload),
        [null, null, null, null],
      );
    });

    it('claims only what is due, not held, and the head of its line', async () => {
      const successes = createSuccessLog(() => {});
      const deps = { db, successes, metrics: METRICS, leaseMs: LEASE_MS };
      const room = { holder: 'another', limit: 10, room: new Map<number, number>(), perEndpoint: 4 };
      // Everything due is held by the fan-out's claim or waits behind it: nothing to take.
      assert.deepEqual(await claimDue(deps, room), []);
      // The first of product:1 answered: its line moves on to the second.
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'succeeded', claimed_by: null, claimed_until: null })
        .where('event_id', '=', 'evt_stage_1')
        .execute();
      const claimed = await claimDue(deps, room);
      assert.deepEqual(
        claimed.map((c) => `${c.endpoint.id} ${c.row.event_id} ${c.row.claimed_by}`),
        [`${endpoints[0]} evt_stage_2 another`],
      );
      assert.equal(claimed[0]!.endpoint.url, 'http://127.0.0.1:9/');
      // The event's JSON as the outbox keeps it, the same bytes the fan-out would have sent.
      assert.equal(claimed[0]!.payload, batch[1]!.json);
    });

    it('sends the copy a dead delivery keeps, and makes dead at once one with neither copy nor kept event', async () => {
      const successes = createSuccessLog(() => {});
      const deps = { db, successes, metrics: METRICS, leaseMs: LEASE_MS };
      const room = { holder: 'third', limit: 10, room: new Map<number, number>(), perEndpoint: 4 };
      const copy = '{"id":"evt_stage_2","kept":"as it died"}';
      // evt_stage_2 retried by hand after it died, with its copy; evt_stage_3's event is purged meanwhile.
      await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', payload: copy, claimed_by: null, claimed_until: null })
        .where('event_id', '=', 'evt_stage_2')
        .execute();
      await db.deleteFrom('events').where('event_id', '=', 'evt_stage_3').execute();
      await db
        .updateTable('webhook_deliveries')
        .set({ claimed_by: null, claimed_until: null })
        .where('event_id', '=', 'evt_stage_3')
        .execute();
      const claimed = await claimDue(deps, room);
      assert.deepEqual(
        claimed.map((c) => [c.row.event_id, c.payload]),
        [['evt_stage_2', copy]],
      );
      const gone = await db
        .selectFrom('webhook_deliveries')
        .select(['status', 'last_error', 'claimed_by'])
        .where('event_id', '=', 'evt_stage_3')
        .execute();
      assert.deepEqual(gone, [
        { status: 'dead', last_error: 'event no longer kept', claimed_by: null },
        { status: 'dead', last_error: 'event no longer kept', claimed_by: null },
      ]);
    });
  });
}
