import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { createEndpoint, FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';

/** Erase (DECISIONS §19) scrubs the webhook deliveries' saved payloads too: they are stored copies of events. */
for (const dialect of DIALECTS) {
  describe(`erasing a user: webhook deliveries (${dialect.name})`, { skip: dialect.skip }, () => {
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

    it('leaves none of their personal values in the deliveries kept', async () => {
      await createEndpoint(t, `${r.url}/users`, ['user.*']);
      const email = `webhooked-${Date.now()}@example.com`;
      const person = await t.createUser({ name: 'Webhooked Wilhelmina', email, age: 61 });
      await r.waitFor('/users', 1);
      const payloads = async () =>
        (await t.server.db.selectFrom('webhook_deliveries').select('payload').execute()).map((row) => row.payload);
      assert.ok((await payloads()).some((payload) => payload.includes(email)));

      const erased = await t.request('POST', `/api/v2/users/${person.id}/erase`, { token: t.adminToken });
      assert.equal(erased.status, 200, erased.text);
      const text = (await payloads()).join('\n');
      for (const value of [email, 'Webhooked Wilhelmina', '"age":61']) assert.ok(!text.includes(value), value);
    });
  });
}
