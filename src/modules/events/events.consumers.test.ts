import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it, mock } from 'node:test';
import { feedEnd } from '../../../test/support/events.ts';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { FeedEvent } from './event.ts';

/**
 * The outbox's consumers (the webhook fan-out, the NATS publisher): one instance at a time advances a
 * consumer (its lease), from the feed's head when it is first seen, past exactly what its handler took,
 * and not at all when the handler fails; the purge keeps what a consumer or a hold still needs.
 */
for (const dialect of DIALECTS) {
  describe(`events: consumers of the outbox (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      // The webhook workers stay quiet: on PostgreSQL any transaction of theirs would hold the feed's
      // head back at the moment a consumer registers (the first test's "before the consumer").
      t = await startTestServer(dialect, {
        REPORT_WORKER: 'false',
        WEBHOOK_FANOUT_POLL_MS: '60000',
        WEBHOOK_DELIVERY_POLL_MS: '60000',
      });
    });
    after(() => t?.close());

    const events = () => t.server.app.services.events;
    const addProduct = async (name: string) => {
      const answer = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name, category: 'consumers', price: 1, stock: 1 },
      });
      assert.equal(answer.status, 201, answer.text);
      return (answer.body as { id: number }).id;
    };
    /** One batch for `holder`, as the consumer's worker takes it. */
    const takeOnce = async (consumer: string, holder: string, limit = 100) => {
      const seen: FeedEvent[] = [];
      const { handled, result } = await events().consume(
        { consumer, holder, limit, leaseMs: 60_000 },
        async (_trx, batch) => {
          seen.push(...batch);
          return batch.length;
        },
      );
      assert.equal(handled, seen.length);
      assert.equal(result, handled === 0 ? undefined : handled, "the handler's value from the committed transaction");
      return seen;
    };
    /**
     * Batches until `expected` events came (PostgreSQL shows an event once every older transaction of the
     * whole server has ended: other suites' transactions delay it a little), then a few more tries, so
     * that one too many would be seen.
     */
    const take = async (consumer: string, holder: string, expected = 0, limit = 100) => {
      const seen: FeedEvent[] = [];
      const deadline = Date.now() + 10_000;
      for (let settle = 0; settle < 3;) {
        seen.push(...(await takeOnce(consumer, holder, limit)));
        if (seen.length >= expected) settle += 1;
        else assert.ok(Date.now() < deadline, `${consumer} got ${seen.length} of ${expected} events`);
        await sleep(seen.length >= expected ? 10 : 30);
      }
      return seen;
    };

    it('starts a new consumer at the head, then hands it each later event once, in order', async () => {
      await addProduct('before the consumer');
      await feedEnd(t); // the feed shows it: the consumer's head is after it
      assert.deepEqual(await take('c-head', 'a'), [], 'the events before a consumer existed are not its own');
      const ids = [await addProduct('one'), await addProduct('two'), await addProduct('three')];
      await feedEnd(t);
      const first = await takeOnce('c-head', 'a', 2);
      const second = await takeOnce('c-head', 'a', 2);
      assert.deepEqual(
        [...first, ...second].map((item) => (item.event.data as { id: number }).id),
        ids,
      );
      assert.deepEqual(await take('c-head', 'a'), []);
      assert.equal(first[0]!.resource, `product:${ids[0]}`);
    });

    it('lets one holder at a time advance a consumer, and another take over once the lease runs out', async () => {
      await feedEnd(t); // every event so far is before its head
      await take('c-lease', 'a');
      await addProduct('leased');
      assert.deepEqual(await take('c-lease', 'b'), [], 'b waits while a holds the lease');
      assert.equal((await take('c-lease', 'a', 1)).length, 1);
      await addProduct('after a');
      await t.server.db
        .updateTable('event_consumers')
        .set({ lease_until: new Date(Date.now() - 1000).toISOString() })
        .where('consumer', '=', 'c-lease')
        .execute();
      assert.equal((await take('c-lease', 'b', 1)).length, 1, 'b takes over an expired lease');
      await addProduct('after b');
      assert.deepEqual(await take('c-lease', 'a'), [], 'a no longer holds it');
      await events().releaseConsumer('c-lease', 'b');
      assert.equal((await take('c-lease', 'a', 1)).length, 1, 'a released lease is free at once');
    });

    it('keeps a lease while its holder steps (renewed at half its time, without a write per step)', async () => {
      await feedEnd(t);
      // The leases read the time from Date.now(): the test moves it by hand, so that a step slowed by a
      // loaded machine (or by another suite's transaction holding the feed back) cannot outlast the lease.
      const leaseMs = 2000;
      const tickMs = 250;
      const step = (holder: string) =>
        events().consume({ consumer: 'c-renew', holder, limit: 100, leaseMs }, async () => {});
      mock.timers.enable({ apis: ['Date'], now: Date.now() });
      let renewals = 0;
      const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => {
        // A claim of a's: `set "holder" = 'a', "lease_until" = ...`.
        if (/^update "event_consumers" set "holder"/.test(text) && parameters[0] === 'a') renewals += 1;
      });
      const steps = 24;
      try {
        await step('a');
        renewals = 0;
        for (let i = 0; i < steps; i += 1) {
          mock.timers.tick(tickMs);
          assert.equal((await step('b')).handled, 0, 'b waits while the lease is fresh');
          await addProduct('while a steps');
          await feedEnd(t);
          assert.equal((await step('a')).handled, 1, 'a holds the lease and takes each new event');
        }
        // One renewal per half lease, not one per step.
        assert.equal(renewals, (steps * tickMs) / (leaseMs / 2), `${renewals} renewals in ${steps} steps`);
        // a stops stepping: once its lease has run out, b takes the consumer over.
        mock.timers.tick(leaseMs + 1);
        await addProduct('after a stopped');
        await feedEnd(t);
        assert.equal((await step('b')).handled, 1, 'b takes over the lease a let run out');
        assert.equal((await step('a')).handled, 0, 'a no longer holds it');
        await events().releaseConsumer('c-renew', 'b');
      } finally {
        stop();
        mock.timers.reset();
      }
    });

    it('leaves the position and what the handler wrote where they were when the handler fails', async () => {
      await feedEnd(t); // every event so far is before its head
      await take('c-fail', 'a');
      const id = await addProduct('failing');
      await feedEnd(t);
      await assert.rejects(
        events().consume({ consumer: 'c-fail', holder: 'a', limit: 10, leaseMs: 60_000 }, async (trx) => {
          await trx.updateTable('products').set({ name: 'written by the handler' }).where('id', '=', id).execute();
          throw new Error('receiver down');
        }),
        /receiver down/,
      );
      const product = await t.request('GET', `/api/products/${id}`, { token: t.adminToken });
      assert.equal((product.body as { name: string }).name, 'failing', 'the handler write rolled back');
      const again = await take('c-fail', 'a', 1);
      assert.deepEqual(
        again.map((item) => (item.event.data as { id: number }).id),
        [id],
        'the same event comes again',
      );
      assert.equal(await events().countBehind('c-fail'), 0);
      await addProduct('behind');
      assert.equal(await events().countBehind('c-fail'), 1, 'counted as soon as it is written');
    });

    it('keeps expired events a consumer has not passed, or a hold still needs', async () => {
      await feedEnd(t); // every event so far is before its head
      await take('c-purge', 'a');
      await addProduct('kept for c-purge');
      const backdate = () =>
        t.server.db.updateTable('events').set({ created_at: '2000-01-01T00:00:00.000Z' }).execute();
      await backdate();
      await events().purgeExpired();
      const behind = await take('c-purge', 'a', 1);
      assert.equal(behind.length, 1, 'the event c-purge had not passed was kept');
      let needed: FeedEvent['position'] | undefined = behind[0]!.position;
      events().holdRetention(async () => needed);
      for (const consumer of ['c-head', 'c-lease', 'c-fail', 'c-renew']) await take(consumer, 'a');
      // The app's own consumer (the webhook fan-out, registered by its migration, quiet here) passes them too.
      await t.server.db
        .updateTable('event_consumers')
        .set({ holder: null })
        .where('consumer', '=', 'webhooks')
        .execute();
      await take('webhooks', 'a');
      await events().purgeExpired();
      const kept = await t.server.db.selectFrom('events').select('event_id').execute();
      assert.ok(
        kept.some((row) => row.event_id === behind[0]!.event.id),
        'the event a hold needs was kept',
      );
      needed = undefined;
      await backdate();
      await events().purgeExpired();
      const left = await t.server.db.selectFrom('events').select('event_id').execute();
      assert.ok(!left.some((row) => row.event_id === behind[0]!.event.id), 'purged once nothing needs it');
    });
  });
}
