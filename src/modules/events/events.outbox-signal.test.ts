import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { addProduct, createEndpoint, FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';

/** The fan-out's poll in this suite: long, so that only the outbox's signal can bring a webhook sooner. */
const SLOW_POLL_MS = 4000;

/**
 * The outbox's after-commit signal (outbox.ts): fired once per commit that wrote an event, after the
 * commit, and for nothing else (a rollback, a write that changed nothing, the consumers' own writes);
 * what wakes the webhook fan-out, the NATS publisher and the subscription hub.
 */
for (const dialect of DIALECTS) {
  describe(`events: the outbox's after-commit signal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, { ...FAST_WEBHOOKS, WEBHOOK_FANOUT_POLL_MS: String(SLOW_POLL_MS) });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    /** Counts the signals while `work` runs (and a little after, for any late one). */
    async function signalsDuring(work: () => Promise<void>): Promise<number> {
      let signals = 0;
      const stop = t.server.app.services.events.afterCommit(() => (signals += 1));
      try {
        await work();
        await sleep(100);
      } finally {
        stop();
      }
      return signals;
    }

    it('wakes the webhook fan-out after a commit that recorded an event: the webhook comes long before the poll', async (c) => {
      await createEndpoint(t, `${r.url}/woken`);
      // The fan-out is woken once it has seen an endpoint at work (webhooks.module.ts): one delivery first.
      await addProduct(t, 'first');
      await r.waitFor('/woken', 1, SLOW_POLL_MS * 3);
      const latencies: number[] = [];
      for (let i = 2; i <= 4; i += 1) {
        const began = Date.now();
        await addProduct(t, `woken ${i}`);
        await r.waitFor('/woken', i, SLOW_POLL_MS * 3);
        latencies.push(Date.now() - began);
      }
      c.diagnostic(`webhooks ${latencies.join(', ')} ms after their writes`);
      assert.ok(
        latencies.every((ms) => ms < SLOW_POLL_MS / 4),
        `webhooks ${latencies.join(', ')} ms after their writes (poll ${SLOW_POLL_MS} ms)`,
      );
    });

    it('fires once per event-writing commit, and not for a rollback, a write that changed nothing, or the consumers’ own writes', async () => {
      const { events } = t.server.app.services;
      const product = await addProduct(t, 'counted');
      const user = await t.createUser();
      const start = await feedEnd(t);
      const delivered = r.at('/woken').length;
      // Writes that commit an event each: a create in one statement (PostgreSQL), updates, a delete, a like.
      const writes = await signalsDuring(async () => {
        await addProduct(t, 'counted 2');
        for (const name of ['a', 'b'])
          await t.request('PATCH', `/api/products/${product}`, { token: t.adminToken, body: { name } });
        const post = await t.request('POST', `/api/users/${user.id}/posts`, {
          token: user.token,
          body: { title: 'T', content: 'C' },
        });
        const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
          token: user.token,
          body: { text: 'Hi' },
        });
        await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: user.token });
        await t.request('DELETE', `/api/products/${product}`, { token: t.adminToken });
      });
      const written = await eventsAfter(t, start, 7);
      assert.equal(written.length, 7, written.map((event) => event.type).join(', '));
      assert.equal(writes, written.length, 'one signal per commit that wrote an event');

      // Writes that commit no event, or roll back: no signal. Meanwhile the fan-out delivers the events
      // above (its own writes: deliveries, the consumer's move, the successes), also without a signal.
      const quiet = await signalsDuring(async () => {
        const comment = written.find((event) => event.type === 'comment.created')!;
        assert.equal(
          (await t.request('POST', `/api/comments/${comment.data.id}/likes`, { token: user.token })).status,
          200,
        );
        assert.equal((await t.request('PATCH', `/api/users/${user.id}`, { token: user.token, body: {} })).status, 200);
        assert.equal((await t.request('DELETE', `/api/products/${product}`, { token: t.adminToken })).status, 404);
        const taken = await t.request('POST', '/api/users', { body: { name: 'Dup', email: user.user.email } });
        assert.equal(taken.status, 409);
        await assert.rejects(
          events.transaction(t.server.db, async (trx) => {
            await events.record(trx, 'report.completed', { id: 3_000_001, synthetic: true });
            throw new Error('rolled back');
          }),
          /rolled back/,
        );
        // The four product events of the writes above reach the endpoint.
        await r.waitFor('/woken', delivered + 4, SLOW_POLL_MS * 3);
        await sleep(200);
      });
      assert.equal(quiet, 0, 'no signal without a committed event');
    });

    it('refuses an event recorded in a transaction the outbox did not open, and writes nothing', async () => {
      const { events } = t.server.app.services;
      const before = await events.countEvents();
      await assert.rejects(
        t.server.db.transaction().execute(async (trx) => {
          await events.record(trx, 'report.completed', { id: 3_000_002, synthetic: true });
        }),
        /only in a transaction of the outbox/,
      );
      assert.equal(await events.countEvents(), before);
    });
  });
}
