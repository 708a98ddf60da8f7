import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import {
  addProduct,
  createEndpoint,
  deleteEndpoint,
  deliveriesOf,
  eventually,
  FAST_WEBHOOKS,
} from '../../../test/support/webhooks.ts';

/**
 * A fast endpoint gets deliveries claimed ahead (delivery-worker.ts); when it turns slow, those still
 * waiting behind its answers would outlive their lease and could be sent while another sender holds
 * them. The worker gives each back unsent once its lease no longer covers a whole attempt, and it is
 * claimed and sent later, once: every event still arrives exactly once, in one attempt.
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: leases of deliveries claimed ahead (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      // A lease of 3 s (the timeout plus a second, the shortest there is): a delivery waiting a second loses
      // it. A timeout of 2 s, not 1: an attempt in flight outlives its lease only past the timeout, and at load
      // 9 a 600 ms answer came over a second late (the event sent twice).
      t = await startTestServer(dialect, { ...FAST_WEBHOOKS, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '100' });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    it('gives back unsent the deliveries claimed ahead whose lease ran out while a slowed endpoint kept them waiting', async () => {
      const QUICK = 10;
      const BACKLOG = 24;
      let answered = 0;
      // Quick answers first (the endpoint is judged fast and gets 8 × 2 claimed at once), then 600 ms each.
      r.respond('/turning', () => (++answered <= QUICK ? { status: 200 } : { status: 200, delayMs: 600 }));
      const endpoint = await createEndpoint(t, `${r.url}/turning`);
      for (let i = 0; i < QUICK; i += 1) await addProduct(t, `quick ${i}`);
      await r.waitFor('/turning', QUICK, 10_000);

      const givenBack: unknown[][] = [];
      const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => {
        // releaseDeliveries: the lease cleared (claimed_by and claimed_until set to null).
        if (/^update "webhook_deliveries" set "claimed_by" = /.test(text) && parameters[0] === null)
          givenBack.push([...parameters]);
      });
      try {
        await Promise.all(Array.from({ length: BACKLOG }, (_, i) => addProduct(t, `backlog ${i}`)));
        await r.waitFor('/turning', QUICK + BACKLOG, 30_000);
        await eventually('every delivery recorded', async () => {
          const list = await deliveriesOf(t, endpoint.id, '&status=succeeded');
          return list.length === QUICK + BACKLOG ? list : undefined;
        });
      } finally {
        stop();
      }
      assert.ok(givenBack.length > 0, 'some deliveries were given back unsent');
      const times = new Map<string, number>();
      for (const item of r.at('/turning')) times.set(item.event.id, (times.get(item.event.id) ?? 0) + 1);
      assert.equal(times.size, QUICK + BACKLOG);
      assert.deepEqual(
        [...times].filter(([, n]) => n !== 1),
        [],
        'no event sent twice',
      );
      const list = await deliveriesOf(t, endpoint.id);
      assert.deepEqual(
        list.filter((item) => item.status !== 'succeeded' || item.attempts !== 1).map((item) => item.id),
        [],
        'each delivered in one attempt: a delivery given back was not counted as tried',
      );
      await deleteEndpoint(t, endpoint.id);
    });
  });
}
