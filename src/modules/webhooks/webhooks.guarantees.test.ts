import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { openPgSession } from '../../../test/support/pg-session.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import {
  addProduct,
  createEndpoint,
  deleteEndpoint,
  deliveriesOf,
  eventually,
  FAST_WEBHOOKS,
  renameProduct,
  warmUp,
  deliveredAfter,
  waitForDeliveries,
} from '../../../test/support/webhooks.ts';

/**
 * DECISIONS §10's guarantees in one process: exactly once with no failure, one resource's events in
 * feed order per endpoint (a failing head holds back only its own resource), a slow endpoint delaying
 * no other, and the events of pending deliveries kept past retention.
 */
/** Longer than FAST_WEBHOOKS' 1 s: the hanging endpoint's requests must outlast a loaded machine's delays. */
const TIMEOUT_MS = 3000;

for (const dialect of DIALECTS) {
  describe(`webhooks: guarantees (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      // Four slots in all, two per endpoint: without the per-endpoint cap the hanging endpoint would take them all.
      t = await startTestServer(dialect, {
        ...FAST_WEBHOOKS,
        DATABASE_POOL_SIZE: '5',
        WEBHOOK_CONCURRENCY: '4',
        WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    it('delivers each event exactly once when nothing fails, promptly after its commit', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/once`);
      const ids = await Promise.all(Array.from({ length: 20 }, (_, i) => addProduct(t, `once ${i}`)));
      await Promise.all(ids.map((id) => renameProduct(t, id, `once renamed ${id}`)));
      await r.waitFor('/once', 40);
      await sleep(500);
      const requests = r.at('/once');
      const byId = new Map<string, number>();
      for (const item of requests) byId.set(item.event.id, (byId.get(item.event.id) ?? 0) + 1);
      assert.equal(byId.size, 40);
      assert.deepEqual(
        [...byId.values()].filter((count) => count !== 1),
        [],
        'no event twice',
      );
      const list = await deliveriesOf(t, endpoint.id);
      assert.equal(list.length, 40);
      assert.ok(list.every((item) => item.status === 'succeeded' && item.attempts === 1));
      // Prompt, not timed: what this tells apart is a wake-up against a lease or a missed signal (a minute
      // here). The latency itself is the benchmark's (bench/RESULTS.md); at load 13 the slowest was 2.2 s.
      const slowest = Math.max(...requests.map((item) => item.at - Date.parse(item.event.timestamp)));
      assert.ok(slowest < 8000, `slowest commit-to-delivery ${slowest} ms`);
      await deleteEndpoint(t, endpoint.id);
    });

    it("holds a resource's later events behind its failing head, while other resources' events flow", async () => {
      let holdHead = true;
      let head = '';
      r.respond('/order', (request) => {
        if (request.event.type === 'product.created' && request.event.data.name === 'head' && holdHead) {
          head = request.event.id;
          return { status: 503, headers: { 'retry-after': '1' } };
        }
        return { status: 200 };
      });
      const endpoint = await createEndpoint(t, `${r.url}/order`);
      const a = await addProduct(t, 'head');
      await renameProduct(t, a, 'a second');
      await renameProduct(t, a, 'a third');
      const b = await addProduct(t, 'other');
      await renameProduct(t, b, 'other second');
      await eventually('the other resource', async () => {
        const names = r.at('/order').map((item) => item.event.data.name);
        return names.includes('other second') ? true : undefined;
      });
      const forA = () => r.at('/order').filter((item) => item.event.data.id === a);
      assert.deepEqual(
        forA().map((item) => item.event.id),
        [head],
        "a's later events wait for its head",
      );
      holdHead = false;
      await eventually('a in order', async () => (forA().length === 4 ? true : undefined), 5000);
      assert.deepEqual(
        forA().map((item) => item.event.data.name),
        ['head', 'head', 'a second', 'a third'],
        'feed order, the head first',
      );
      await deleteEndpoint(t, endpoint.id);
    });

    it('lets a hanging endpoint delay no other endpoint', async () => {
      r.script('/slow', { hang: true });
      const slow = await createEndpoint(t, `${r.url}/slow`);
      const fast = await createEndpoint(t, `${r.url}/fast`);
      // First the hanging endpoint holds its two slots (WEBHOOK_ENDPOINT_CONCURRENCY), each for the whole
      // timeout; then four more events come, with four deliveries for it waiting. Their deliveries to the
      // other endpoint must go out while those two hang: without the per-endpoint cap it would take all four
      // slots and the fast endpoint would wait the timeout (seen failing with WEBHOOK_ENDPOINT_CONCURRENCY 4).
      await Promise.all([0, 1].map((i) => addProduct(t, `busy ${i}`)));
      const [, secondSlow] = await r.waitFor('/slow', 2, 5000);
      const later = await Promise.all([2, 3, 4, 5].map((i) => addProduct(t, `busy ${i}`)));
      // Measured from the second hanging request, not from the commits: at load 10 a commit-to-delivery time
      // alone came near a second (the suite's timeout is 3 s, so a second of lateness still tells them apart).
      const after = await deliveredAfter(r, '/fast', later, secondSlow!.at);
      assert.ok(
        Math.max(...after) < TIMEOUT_MS - 1000,
        `fast deliveries ${after.join(', ')} ms after the slow one's second request (timeout ${TIMEOUT_MS} ms)`,
      );
      await deleteEndpoint(t, slow.id);
      await deleteEndpoint(t, fast.id);
    });

    it('lets an endpoint that answered fast and then hangs delay no other endpoint', async () => {
      // Known fast first: it may have more than WEBHOOK_ENDPOINT_CONCURRENCY in flight, but those beyond its
      // first two take extra slots, so when it starts hanging it holds two of the four and the other two
      // serve the rest (when a fast endpoint's share was four times its two, it took all four; seen failing).
      // The hanging requests of the test before hold their slots until they time out.
      await sleep(TIMEOUT_MS + 500);
      const turning = await createEndpoint(t, `${r.url}/turning`);
      await warmUp(t, r, ['/turning']);
      r.script('/turning', { hang: true });
      const other = await createEndpoint(t, `${r.url}/other`);
      const later = await Promise.all([0, 1, 2, 3].map((i) => addProduct(t, `turning ${i}`)));
      const hung = await r.waitFor('/turning', 5, 5000);
      const after = await deliveredAfter(r, '/other', later, hung[4]!.at);
      assert.ok(
        Math.max(...after) < TIMEOUT_MS - 1000,
        `other deliveries ${after.join(', ')} ms after the hanging one's second hanging request (timeout ${TIMEOUT_MS} ms)`,
      );
      await deleteEndpoint(t, turning.id);
      await deleteEndpoint(t, other.id);
      // Its own hanging requests end before the next test needs the slots.
      await sleep(TIMEOUT_MS + 500);
    });

    it("claims a fast endpoint's deliveries ahead: a backlog costs a claim per batch, not one per answer", async () => {
      const endpoint = await createEndpoint(t, `${r.url}/ahead`);
      const since = new Date().toISOString();
      await Promise.all(Array.from({ length: 60 }, (_, i) => addProduct(t, `ahead ${i}`)));
      await waitForDeliveries(t, r, '/ahead', 60, endpoint.id);
      // A backlog of 60 due at once, to an endpoint known to answer fast.
      const claims: string[] = [];
      const stop = observeQueries(t.server.db, (sql) => {
        if (/^update "webhook_deliveries" set "claimed_by"/.test(sql)) claims.push(sql);
      });
      try {
        const replay = await t.request('POST', `/api/webhooks/${endpoint.id}/replay`, {
          token: t.adminToken,
          body: { since },
        });
        assert.equal(replay.status, 202, replay.text);
        await waitForDeliveries(t, r, '/ahead', 120, endpoint.id);
      } finally {
        stop();
      }
      // Two in flight at once (WEBHOOK_ENDPOINT_CONCURRENCY): a claim per answer made 30 to 60.
      assert.ok(claims.length <= 12, `${claims.length} claims for 60 deliveries`);
      await deleteEndpoint(t, endpoint.id);
    });

    it(
      'answers a replay that PostgreSQL aborts as one side of a deadlock by running it again',
      {
        skip: dialect.name !== 'postgres' && "row locks and deadlocks are PostgreSQL's",
      },
      async () => {
        const endpoint = await createEndpoint(t, `${r.url}/deadlock`);
        const since = new Date().toISOString();
        for (let i = 0; i < 3; i += 1) await addProduct(t, `deadlock ${i}`);
        await r.waitFor('/deadlock', 3, 10_000);
        await eventually('recorded', async () =>
          (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 3 ? true : undefined,
        );
        const ids = (await deliveriesOf(t, endpoint.id)).map((item) => item.id).sort((a, b) => a - b);
        // Another transaction holds the last row, then asks for the first, which the replay (locking in
        // feed order) holds while it waits for the last: a deadlock, and the replay is the side aborted.
        const other = await openPgSession(t.config.DATABASE_URL);
        const touch = 'update webhook_deliveries set attempts = attempts where id = $1';
        try {
          await other.query('begin');
          // The replay waits first, so its deadlock check (after deadlock_timeout, 1 s) should find the
          // cycle first; on a starved machine the other side's could fire first and abort the other side
          // instead (seen once at load 10). With a long timeout here, only the replay's check can.
          await other.query("set local deadlock_timeout = '60s'");
          await other.query(touch, [ids.at(-1)]);
          const replay = t.request('POST', `/api/webhooks/${endpoint.id}/replay`, {
            token: t.adminToken,
            body: { since },
          });
          await sleep(300);
          await other.query(touch, [ids[0]]);
          await other.query('commit');
          const answer = await replay;
          assert.equal(answer.status, 202, answer.text);
          assert.equal(answer.body.queued, 3);
        } finally {
          await other.end();
        }
        await r.waitFor('/deadlock', 6, 10_000);
        await deleteEndpoint(t, endpoint.id);
      },
    );

    it('sends a claimed delivery only while its lease covers a whole attempt', async () => {
      const deliveries = t.server.app.services.webhooks.deliveries;
      const now = Date.now();
      const claimed = (leftMs: number) =>
        ({
          row: { claimed_until: new Date(now + leftMs).toISOString() },
          endpoint: {},
        }) as Parameters<typeof deliveries.sendable>[0];
      assert.equal(deliveries.sendable(claimed(TIMEOUT_MS + 500), now), true);
      assert.equal(
        deliveries.sendable(claimed(TIMEOUT_MS - 100), now),
        false,
        'it could still be in flight when the lease ends',
      );
    });

    it('gives an event to the endpoint as it was subscribed when the event committed, whenever it fans out', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/as-then`, ['product.*']);
      const db = t.server.db;
      // The fan-out held back (its consumer leased to no worker), so the change below comes first.
      const hold = (until: string) =>
        db
          .updateTable('event_consumers')
          .set({ holder: 'test-hold', lease_until: until })
          .where('consumer', '=', 'webhooks')
          .execute();
      await hold('2999-01-01T00:00:00.000Z');
      try {
        await addProduct(t, 'committed while subscribed');
        const patched = await t.request('PATCH', `/api/webhooks/${endpoint.id}`, {
          token: t.adminToken,
          body: { events: ['order.*'] },
        });
        assert.equal(patched.status, 200, patched.text);
        await addProduct(t, 'committed after the change');
      } finally {
        await hold('2000-01-01T00:00:00.000Z');
      }
      const [delivered] = await r.waitFor('/as-then', 1, 5000);
      assert.equal(delivered!.event.data.name, 'committed while subscribed');
      await sleep(300);
      assert.equal(r.at('/as-then').length, 1, 'not the product created after the change');
      await deleteEndpoint(t, endpoint.id);
    });

    it('keeps the event of a pending delivery past its retention, and lets it go once delivered', async () => {
      let down = true;
      r.respond('/kept', () => (down ? { status: 410 } : { status: 200 }));
      const endpoint = await createEndpoint(t, `${r.url}/kept`);
      await addProduct(t, 'kept');
      const [request] = await r.waitFor('/kept', 1);
      const eventId = request!.event.id;
      await eventually('disabled', async () =>
        (await t.request('GET', `/api/webhooks/${endpoint.id}`, { token: t.adminToken })).body.status === 'disabled'
          ? true
          : undefined,
      );
      const db = t.server.db;
      await db.updateTable('events').set({ created_at: '2000-01-01T00:00:00.000Z' }).execute();
      await eventually('fan-out passed', async () =>
        (await t.server.app.services.events.countBehind('webhooks')) === 0 ? true : undefined,
      );
      await t.server.app.services.events.purgeExpired();
      const kept = await db.selectFrom('events').select('event_id').where('event_id', '=', eventId).execute();
      assert.equal(kept.length, 1, 'the pending delivery keeps its event');
      down = false;
      await t.request('PATCH', `/api/webhooks/${endpoint.id}`, { token: t.adminToken, body: { status: 'enabled' } });
      await eventually('delivered', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 1 ? true : undefined,
      );
      await t.server.app.services.events.purgeExpired();
      const left = await db.selectFrom('events').select('event_id').where('event_id', '=', eventId).execute();
      assert.equal(left.length, 0, 'purged once delivered');
      await deleteEndpoint(t, endpoint.id);
    });
  });
}
