import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { addProduct, deliveriesOf, eventually, FAST_WEBHOOKS } from '../../../test/support/webhooks.ts';
import { createDeliverySender } from './delivery-sender.ts';
import { BlockedUrlError, createUrlGuard, isBlockedAddress } from './url-guard.ts';

describe('webhook URL guard', () => {
  it('blocks loopback, private, link-local, unspecified, CGNAT and their IPv4-mapped forms', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
    ])
      assert.equal(isBlockedAddress(address), true, address);
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ])
      assert.equal(isBlockedAddress(address), false, address);
  });

  it('checks every address a name resolves to, and does nothing when not enforced', async () => {
    const resolver = async (name: string) =>
      name === 'mixed.example'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : [{ address: '93.184.216.34', family: 4 }];
    const guard = createUrlGuard({ enforced: true, resolver });
    await assert.rejects(guard.resolve('mixed.example'), BlockedUrlError);
    assert.deepEqual(await guard.resolve('public.example'), [{ address: '93.184.216.34', family: 4 }]);
    await assert.rejects(guard.resolve('[::1]'), BlockedUrlError);
    await assert.rejects(guard.assertAllowedUrl('http://mixed.example/x'), { code: 'VALIDATION_ERROR' });
    const open = createUrlGuard({ enforced: false, resolver });
    assert.equal((await open.resolve('mixed.example')).length, 2);
  });

  it('checks the name again at the connection, so a rebinding to a private address is refused there', async () => {
    let lookups = 0;
    // Public at the first look, loopback afterwards (DNS rebinding).
    const resolver = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? '93.184.216.34' : '127.0.0.1', family: 4 }];
    };
    const sender = createDeliverySender({ timeoutMs: 1000, guard: createUrlGuard({ enforced: true, resolver }) });
    try {
      const result = await sender.send({
        url: 'http://rebind.test/hook',
        secrets: [],
        eventId: 'evt_x',
        payload: '{}',
      });
      assert.equal(result.kind, 'refused', JSON.stringify(result));
      assert.equal(lookups, 2, 'the connection looked the name up through the guard');
    } finally {
      await sender.close();
    }
  });
});

for (const dialect of DIALECTS) {
  describe(`webhooks in production refuse private addresses (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, { ...FAST_WEBHOOKS, NODE_ENV: 'production' });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    it('answers 422 naming url for a host that is or resolves to a private address', async () => {
      for (const url of [
        r.url,
        'http://localhost:8080/hook',
        'http://[::1]/hook',
        'http://10.0.0.1/hook',
        'http://169.254.169.254/latest/meta-data',
        'http://[::ffff:127.0.0.1]/hook',
        'http://100.64.1.1/hook',
        'http://0.0.0.0/hook',
      ]) {
        const answer = await t.request('POST', '/api/webhooks', { token: t.adminToken, body: { url } });
        assert.equal(answer.status, 422, `${url}: ${answer.text}`);
        assert.deepEqual(
          answer.body.error.details.map((detail: { field: string }) => detail.field),
          ['url'],
        );
      }
      const created = await t.request('POST', '/api/webhooks', {
        token: t.adminToken,
        body: { url: 'http://93.184.216.34/hook', events: ['user.deleted'] },
      });
      assert.equal(created.status, 201, 'a public address is allowed');
      const patch = await t.request('PATCH', `/api/webhooks/${created.body.id}`, {
        token: t.adminToken,
        body: { url: 'http://127.0.0.1/hook' },
      });
      assert.equal(patch.status, 422);
    });

    it('refuses at delivery time too: the attempt is recorded as failed and nothing is sent', async () => {
      // As if the name resolved to a public address at creation and to this one now.
      const at = new Date().toISOString();
      const row = await t.server.db
        .insertInto('webhook_endpoints')
        .values({
          url: `${r.url}/private`,
          events: '["product.*"]',
          description: null,
          status: 'enabled',
          secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
          previous_secret: null,
          previous_secret_until: null,
          disabled_at: null,
          created_at: at,
          updated_at: at,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await addProduct(t, 'not for a private address');
      const [delivery] = await eventually('an attempt', async () => {
        const list = await deliveriesOf(t, row.id);
        return list[0] && list[0].attempts >= 1 ? list : undefined;
      });
      assert.equal(delivery!.lastResponseStatus, null);
      await sleep(300);
      assert.equal(r.at('/private').length, 0, 'the receiver got nothing');
      const metrics = await t.request('GET', '/metrics', { token: t.adminToken });
      assert.match(metrics.text, /webhook_delivery_attempts_total\{outcome="refused"\} [1-9]/);
    });
  });

  describe(`webhooks in production with WEBHOOK_ALLOW_PRIVATE_URLS (${dialect.name})`, { skip: dialect.skip }, () => {
    it('allows a private address', async () => {
      const t = await startTestServer(dialect, {
        ...FAST_WEBHOOKS,
        NODE_ENV: 'production',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      });
      try {
        const answer = await t.request('POST', '/api/webhooks', {
          token: t.adminToken,
          body: { url: 'http://localhost:8080/hook' },
        });
        assert.equal(answer.status, 201, answer.text);
      } finally {
        await t.close();
      }
    });
  });
}
