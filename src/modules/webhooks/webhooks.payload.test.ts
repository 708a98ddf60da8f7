import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
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
import { toFeedEvent } from '../events/event.ts';

/**
 * Where a delivery's payload comes from: the outbox, read when it is sent (no copy in the row while it
 * is pending or once it succeeded), and a copy written into the row only when it dies, so a hand retry
 * after its event is purged still sends what it sent before. An erasure scrubs those copies too.
 * Retry schedule 100ms,100ms (three attempts).
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: the payload of a delivery (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, FAST_WEBHOOKS);
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    const payloadOf = async (eventId: string) =>
      (
        await t.server.db
          .selectFrom('webhook_deliveries')
          .select('payload')
          .where('event_id', '=', eventId)
          .executeTakeFirstOrThrow()
      ).payload;

    /** The event as the outbox keeps it, put together as the feed does. */
    const outboxJson = async (eventId: string) =>
      toFeedEvent(
        await t.server.db.selectFrom('events').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow(),
      ).json;

    /** The event ages out of the outbox: it and every event before it (the purge takes the feed's prefix). */
    async function ageOut(eventId: string): Promise<void> {
      const { db } = t.server;
      await db.updateTable('events').set({ created_at: '2000-01-01T00:00:00.000Z' }).execute();
      await eventually('fan-out passed', async () =>
        (await t.server.app.services.events.countBehind('webhooks')) === 0 ? true : undefined,
      );
      await t.server.app.services.events.purgeExpired();
      const left = await db.selectFrom('events').select('event_id').where('event_id', '=', eventId).execute();
      assert.equal(left.length, 0, 'the event is purged');
    }

    it('keeps no copy in a pending delivery, and sends the same bytes, read from the outbox, on each attempt', async () => {
      r.script('/read', { status: 503, headers: { 'retry-after': '1' } }, { status: 500 }, { status: 200 });
      const endpoint = await createEndpoint(t, `${r.url}/read`);
      await addProduct(t, 'read from the outbox, é');
      const [first] = await r.waitFor('/read', 1);
      const eventId = first!.event.id;
      const pending = await eventually('the first attempt recorded', async () => {
        const [delivery] = await deliveriesOf(t, endpoint.id);
        return delivery?.attempts === 1 ? delivery : undefined;
      });
      assert.equal(pending.status, 'pending');
      assert.equal(await payloadOf(eventId), null, 'no copy of the event while pending');
      const requests = await r.waitFor('/read', 3, 5000);
      const expected = await outboxJson(eventId);
      assert.deepEqual(
        requests.map((request) => request.body),
        [expected, expected, expected],
        'every attempt sends the event JSON as the outbox keeps it',
      );
      await eventually('succeeded', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 1 ? true : undefined,
      );
      assert.equal(await payloadOf(eventId), null, 'no copy once succeeded');
      await deleteEndpoint(t, endpoint.id);
    });

    it('keeps a copy in a dead delivery: a hand retry after its event is purged sends the same bytes', async () => {
      r.script('/dies', { status: 500 });
      const endpoint = await createEndpoint(t, `${r.url}/dies`);
      await addProduct(t, 'dies, then retried');
      const sent = await r.waitFor('/dies', 3);
      const [dead] = await eventually('dead', async () => {
        const list = await deliveriesOf(t, endpoint.id, '&status=dead');
        return list.length === 1 ? list : undefined;
      });
      assert.equal(await payloadOf(dead!.eventId), sent[0]!.body, 'the copy is what was sent');
      await ageOut(dead!.eventId);
      r.script('/dies', { status: 204 });
      const retry = await t.request('POST', `/api/webhooks/${endpoint.id}/deliveries/${dead!.id}/retry`, {
        token: t.adminToken,
      });
      assert.equal(retry.status, 202, retry.text);
      const requests = await r.waitFor('/dies', 4, 5000);
      assert.equal(requests[3]!.body, sent[0]!.body);
      assert.equal(requests[3]!.headers['webhook-id'], dead!.eventId);
      await eventually('succeeded', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 1 ? true : undefined,
      );
      assert.equal(await payloadOf(dead!.eventId), null, 'the copy is dropped once it succeeded');
      await deleteEndpoint(t, endpoint.id);
    });

    it('refuses with 409 a hand retry of a delivery that kept no copy once its event is purged', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/done`);
      await addProduct(t, 'delivered, then purged');
      await r.waitFor('/done', 1);
      const [done] = await eventually('succeeded', async () => {
        const list = await deliveriesOf(t, endpoint.id, '&status=succeeded');
        return list.length === 1 ? list : undefined;
      });
      await ageOut(done!.eventId);
      const retry = await t.request('POST', `/api/webhooks/${endpoint.id}/deliveries/${done!.id}/retry`, {
        token: t.adminToken,
      });
      assert.equal(retry.status, 409, retry.text);
      assert.equal(retry.body.error.code, 'CONFLICT');
      assert.equal((await deliveriesOf(t, endpoint.id))[0]!.status, 'succeeded', 'left as it was');
      await deleteEndpoint(t, endpoint.id);
    });

    it("scrubs a person's values from the copies dead deliveries keep when they are erased", async () => {
      r.script('/users', { status: 500 });
      const endpoint = await createEndpoint(t, `${r.url}/users`, ['user.*']);
      const email = `webhooked-${Date.now()}@example.com`;
      const person = await t.createUser({ name: 'Webhooked Wilhelmina', email, age: 61 });
      await r.waitFor('/users', 3);
      await eventually('dead', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=dead')).length >= 1 ? true : undefined,
      );
      const copies = async () =>
        (await t.server.db.selectFrom('webhook_deliveries').select('payload').execute()).map(
          (row) => row.payload ?? '',
        );
      assert.ok((await copies()).some((payload) => payload.includes(email)));

      const erased = await t.request('POST', `/api/v2/users/${person.id}/erase`, { token: t.adminToken });
      assert.equal(erased.status, 200, erased.text);
      const text = (await copies()).join('\n');
      for (const value of [email, 'Webhooked Wilhelmina', '"age":61']) assert.ok(!text.includes(value), value);
      await deleteEndpoint(t, endpoint.id);
    });
  });
}
