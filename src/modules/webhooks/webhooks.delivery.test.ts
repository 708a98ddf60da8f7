import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
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
  renameProduct,
} from '../../../test/support/webhooks.ts';

/**
 * Deliveries to a real HTTP receiver (DECISIONS §10): the Standard Webhooks request, verified with the
 * package's own `verify`; retries on the schedule, Retry-After, 410, timeouts, redirects, dead
 * deliveries and a manual retry, replay, and the metrics. Retry schedule 100ms,100ms (three attempts).
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: deliveries (${dialect.name})`, { skip: dialect.skip }, () => {
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

    it('sends the event JSON signed per Standard Webhooks: verify() accepts it, webhook-id is the event id', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/sig`);
      const productId = await addProduct(t, 'signed');
      const [request] = await r.waitFor('/sig', 1);
      const headers = request!.headers as Record<string, string>;
      const verified = new Webhook(endpoint.secret).verify(request!.body, headers) as { id: string; type: string };
      assert.equal(verified.type, 'product.created');
      assert.equal(headers['webhook-id'], verified.id);
      assert.equal(headers['content-type'], 'application/json');
      assert.equal(headers.authorization, undefined, 'no token of ours');
      const feed = await t.request('GET', '/api/events?types=product.created&limit=1000', { token: t.adminToken });
      const event = feed.body.data.find((item: { data: { id: number } }) => item.data.id === productId);
      assert.deepEqual(JSON.parse(request!.body), event, 'the body is the event as the feed shows it');
      assert.throws(() =>
        new Webhook(`whsec_${Buffer.alloc(32, 1).toString('base64')}`).verify(request!.body, headers),
      );

      const rotated = await t.request('POST', `/api/webhooks/${endpoint.id}/rotate-secret`, { token: t.adminToken });
      await addProduct(t, 'signed twice');
      const [, second] = await r.waitFor('/sig', 2);
      const signatures = (second!.headers['webhook-signature'] as string).split(' ');
      assert.equal(signatures.length, 2, 'old and new secrets sign during the overlap');
      for (const secret of [endpoint.secret, rotated.body.secret as string])
        assert.ok(new Webhook(secret).verify(second!.body, second!.headers as Record<string, string>));
      await deleteEndpoint(t, endpoint.id);
    });

    it('retries a failed delivery on the schedule with the same webhook-id until it succeeds', async () => {
      r.script('/retry', { status: 500 }, { status: 502 }, { status: 200 });
      const endpoint = await createEndpoint(t, `${r.url}/retry`);
      await addProduct(t, 'retried');
      const requests = await r.waitFor('/retry', 3);
      assert.equal(new Set(requests.map((item) => item.headers['webhook-id'])).size, 1);
      assert.ok(requests[1]!.at - requests[0]!.at >= 70, 'the retry waited its 100 ms (±20 %)');
      const [delivery] = await eventually('success', async () => {
        const list = await deliveriesOf(t, endpoint.id);
        return list[0]?.status === 'succeeded' ? list : undefined;
      });
      assert.equal(delivery!.attempts, 3);
      assert.equal(delivery!.lastResponseStatus, 200);
      await deleteEndpoint(t, endpoint.id);
    });

    it('waits as long as a Retry-After on 429 says, even past the schedule', async () => {
      r.script('/slowdown', { status: 429, headers: { 'retry-after': '1' } }, { status: 200 });
      const endpoint = await createEndpoint(t, `${r.url}/slowdown`);
      await addProduct(t, 'rate limited');
      const [first, second] = await r.waitFor('/slowdown', 2);
      assert.ok(second!.at - first!.at >= 950, `retried after ${second!.at - first!.at} ms`);
      await deleteEndpoint(t, endpoint.id);
    });

    it('marks a delivery dead after the last attempt; a manual retry sends it again at once', async () => {
      r.script('/dead', { status: 500 });
      const endpoint = await createEndpoint(t, `${r.url}/dead`);
      await addProduct(t, 'doomed');
      await r.waitFor('/dead', 3);
      const [dead] = await eventually('dead', async () => {
        const list = await deliveriesOf(t, endpoint.id, '&status=dead');
        return list.length === 1 ? list : undefined;
      });
      assert.equal(dead!.attempts, 3);
      assert.equal(dead!.nextAttemptAt, null);
      await sleep(300);
      assert.equal(r.at('/dead').length, 3, 'nothing after the last attempt');
      r.script('/dead', { status: 204 });
      const retry = await t.request('POST', `/api/webhooks/${endpoint.id}/deliveries/${dead!.id}/retry`, {
        token: t.adminToken,
      });
      assert.equal(retry.status, 202, retry.text);
      assert.equal(retry.body.status, 'pending');
      await r.waitFor('/dead', 4, 2000);
      await eventually('succeeded', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 1 ? true : undefined,
      );
      await deleteEndpoint(t, endpoint.id);
    });

    it('disables the endpoint on 410; its deliveries wait and go on once it is enabled again', async () => {
      let gone = true;
      r.respond('/gone', () => (gone ? { status: 410, delayMs: 200 } : { status: 200 }));
      const endpoint = await createEndpoint(t, `${r.url}/gone`);
      await addProduct(t, 'gone');
      await addProduct(t, 'committed before the 410');
      await r.waitFor('/gone', 1);
      await eventually('disabled', async () => {
        const read = await t.request('GET', `/api/webhooks/${endpoint.id}`, { token: t.adminToken });
        return read.body.status === 'disabled' ? true : undefined;
      });
      await addProduct(t, 'while disabled: not its event');
      await sleep(300);
      const sent = r.at('/gone').length;
      await sleep(400);
      assert.equal(r.at('/gone').length, sent, 'nothing is sent to a disabled endpoint');
      const pending = await deliveriesOf(t, endpoint.id, '&status=pending');
      assert.equal(pending.length, 2, 'both events committed while it was enabled wait');
      gone = false;
      await t.request('PATCH', `/api/webhooks/${endpoint.id}`, { token: t.adminToken, body: { status: 'enabled' } });
      await eventually('both delivered', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 2 ? true : undefined,
      );
      assert.equal((await deliveriesOf(t, endpoint.id)).length, 2, 'the event committed while disabled is not its own');
      await deleteEndpoint(t, endpoint.id);
    });

    it('counts a timeout and a redirect as failures: the redirect is not followed', async () => {
      r.script('/hang', { hang: true }, { status: 200 });
      r.script('/redirect', { redirect: `${r.url}/elsewhere` }, { status: 200 });
      const hang = await createEndpoint(t, `${r.url}/hang`);
      const redirect = await createEndpoint(t, `${r.url}/redirect`);
      await addProduct(t, 'hanging');
      await r.waitFor('/hang', 2, 5000);
      await r.waitFor('/redirect', 2, 5000);
      assert.equal(r.at('/elsewhere').length, 0);
      const [timedOut] = await eventually('success', async () => {
        const list = await deliveriesOf(t, hang.id);
        return list[0]?.status === 'succeeded' ? list : undefined;
      });
      assert.equal(timedOut!.attempts, 2);
      await deleteEndpoint(t, hang.id);
      await deleteEndpoint(t, redirect.id);
    });

    it('replays every kept event since a time, with the same webhook-ids', async () => {
      const since = new Date().toISOString();
      const endpoint = await createEndpoint(t, `${r.url}/replay`);
      const id = await addProduct(t, 'replayed');
      await renameProduct(t, id, 'replayed again');
      const first = await r.waitFor('/replay', 2);
      await eventually('both succeeded', async () =>
        (await deliveriesOf(t, endpoint.id, '&status=succeeded')).length === 2 ? true : undefined,
      );
      const replay = await t.request('POST', `/api/webhooks/${endpoint.id}/replay`, {
        token: t.adminToken,
        body: { since },
      });
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.queued, 2);
      const all = await r.waitFor('/replay', 4);
      assert.deepEqual(
        all.slice(2).map((item) => item.headers['webhook-id']),
        first.map((item) => item.headers['webhook-id']),
        'the same events, in the same order',
      );
      await deleteEndpoint(t, endpoint.id);
    });

    it('shows attempts by outcome, latency, dead deliveries, the backlog and pending deliveries in /metrics', async () => {
      const text = (await t.request('GET', '/metrics')).text;
      assert.match(text, /webhook_delivery_attempts_total\{outcome="succeeded"\} [1-9]/);
      assert.match(text, /webhook_delivery_attempts_total\{outcome="timeout"\} [1-9]/);
      assert.match(text, /webhook_delivery_attempts_total\{outcome="gone"\} [1-9]/);
      assert.match(text, /webhook_delivery_latency_seconds_count [1-9]/);
      assert.match(text, /webhook_deliveries_dead_total [1-9]/);
      assert.match(text, /webhook_events_behind \d+/);
      assert.match(text, /webhook_deliveries_pending \d+/);
    });
  });
}
