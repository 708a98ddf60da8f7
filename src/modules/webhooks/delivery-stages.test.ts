import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { Db } from '../../core/db/database.ts';
import type { EventType, FeedEvent } from '../events/event.ts';
import { claimDue } from './delivery-claim.ts';
import { fanOutBatch } from './delivery-fan-out.ts';
import { createSuccessLog } from './delivery-successes.ts';

/**
 * The fan-out and claim stages on their own, against the real tables: what a batch of events makes
 * (one delivery per subscribed endpoint, the heads of their lines claimed for the worker with room), and
 * what a claim then takes (the head of each line only, within the room). The server's own workers poll
 * once a minute and no event of these is in its outbox, so the stages here are the only ones at work.
 */
const AT = (minute: number) => new Date(Date.UTC(2026, 10, 28, 10, minute)).toISOString();
const LEASE_MS = 60_000;

function feedEvent(seq: number, type: EventType, resource: string): FeedEvent {
  const event = { id: `evt_stage_${seq}`, type, timestamp: AT(seq), data: { id: seq } };
  return { event, json: JSON.stringify(event), cursor: String(seq), position: { tx: 0, seq }, resource };
}

for (const dialect of DIALECTS) {
  describe(`webhook delivery stages: fan-out and claim (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let db: Db;
    const endpoints: number[] = [];
    before(async () => {
      t = await startTestServer(dialect, {
        REPORT_WORKER: 'false',
        WEBHOOK_DELIVERY_POLL_MS: '60000',
        WEBHOOK_FANOUT_POLL_MS: '60000',
      });
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

    it('makes one delivery per subscribed endpoint, claiming the head of each line for the worker within its room', async () => {
      const batch = [
        feedEvent(1, 'product.created', 'product:1'),
        feedEvent(2, 'product.updated', 'product:1'),
        feedEvent(3, 'comment.created', 'comment:1'),
      ];
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
        assert.equal(claimed.row.payload, batch.find((item) => item.event.id === claimed.row.event_id)!.json);
      }
      // Run again (a fan-out repeated after a crash), nothing is made twice.
      await db.transaction().execute((trx) => fanOutBatch(trx, batch, undefined, LEASE_MS));
      const rows = await db.selectFrom('webhook_deliveries').select('id').execute();
      assert.equal(rows.length, 4);
    });

    it('claims only what is due, not held, and the head of its line', async () => {
      const successes = createSuccessLog(() => {});
      const deps = { db, successes, leaseMs: LEASE_MS, tracesOf: async () => undefined };
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
    });
  });
}
