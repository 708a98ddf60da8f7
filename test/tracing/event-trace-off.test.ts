import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { natsSkip, testStream, type TestStream } from '../support/nats.ts';
import { natsHeadersOf } from '../support/nats-headers.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { createEndpoint, FAST_WEBHOOKS } from '../support/webhooks.ts';

/**
 * DECISIONS §17 with tracing off (no OTLP endpoint: a process of its own, as tracing is started once per
 * process): an event keeps no trace context, and neither its webhook request nor its NATS message carries
 * a `traceparent`, even when the request that wrote it came with one.
 */
for (const dialect of DIALECTS) {
  describe(`tracing off: events keep no trace (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    let stream: TestStream;
    before(async () => {
      r = await startWebhookReceiver();
      stream = await testStream();
      t = await startTestServer(dialect, { ...FAST_WEBHOOKS, ...stream.env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
      await createEndpoint(t, `${r.url}/plain`);
    });
    after(async () => {
      await t?.close();
      await r?.close();
      await stream?.close();
    });

    it('stores no trace context and adds no traceparent to the webhook or the NATS message', async () => {
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const created = await t.request('POST', '/api/products', {
        token: t.adminToken,
        headers: { traceparent },
        body: { name: 'untraced', category: 'tracing', price: 1, stock: 1 },
      });
      assert.equal(created.status, 201, created.text);
      const [hooked] = await r.waitFor('/plain', 1);
      assert.equal(hooked!.headers.traceparent, undefined, 'no traceparent on the webhook');
      const rows = await t.server.db
        .selectFrom('events')
        .select(['event_id', 'traceparent', 'tracestate'])
        .where('event_id', '=', hooked!.event.id)
        .execute();
      assert.deepEqual(rows, [{ event_id: hooked!.event.id, traceparent: null, tracestate: null }]);
      const headers = await natsHeadersOf(stream, hooked!.event.id);
      assert.equal(headers.get('nats-msg-id'), hooked!.event.id, 'the message, by its Nats-Msg-Id');
      assert.equal(headers.get('traceparent'), undefined, 'no traceparent header on the NATS message');
    });
  });
}
