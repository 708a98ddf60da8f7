import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { activeTracing } from '../../src/core/tracing/tracing.ts';
import { DIALECTS } from '../support/dialects.ts';
import { natsSkip, testStream, type TestStream } from '../support/nats.ts';
import { natsHeadersOf } from '../support/nats-headers.ts';
import {
  describeSpans,
  newTrace,
  SPAN_KIND,
  startOtlpCollector,
  type ReceivedSpan,
} from '../support/otlp-collector.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { createEndpoint, FAST_WEBHOOKS } from '../support/webhooks.ts';

/**
 * DECISIONS §17, propagation: an event keeps the trace context of the request that wrote it, and its
 * webhook attempt and NATS message join that trace (the real app in this process, a real receiver, real
 * NATS JetStream, both databases, spans read from a collector of the test's own). The background workers
 * run in the root context: a worker woken by a traced commit puts none of its statements in that trace.
 */

// Read by the SDK's batch span processor: batches every 50 ms instead of 5 s, so a test waits little.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
const collector = await startOtlpCollector();
after(() => collector.close());

const SERVER = SPAN_KIND.SERVER;
const PRODUCER = SPAN_KIND.PRODUCER;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

/** The spans of `traceId` once `ready` holds of them. */
async function spansOf(traceId: string, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const of = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  await collector.until((spans) => ready(of(spans)), 10_000);
  return of(collector.spans);
}

/** The ancestors of `span` in `spans`, nearest first. */
function ancestorsOf(spans: ReceivedSpan[], span: ReceivedSpan): ReceivedSpan[] {
  const byId = new Map(spans.map((item) => [item.spanId, item]));
  const chain: ReceivedSpan[] = [];
  for (let at = byId.get(span.parentSpanId); at && chain.length < 20; at = byId.get(at.parentSpanId)) chain.push(at);
  return chain;
}

for (const dialect of DIALECTS) {
  describe(`tracing: an event keeps its writer's trace (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    let stream: TestStream;
    before(async () => {
      r = await startWebhookReceiver();
      stream = await testStream();
      t = await startTestServer(dialect, {
        ...FAST_WEBHOOKS,
        ...stream.env,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      });
      await createEndpoint(t, `${r.url}/joined`);
    });
    after(async () => {
      await t?.close();
      await r?.close();
      await stream?.close();
    });

    it('joins the webhook attempt and the NATS message to the trace of the request that wrote the event', async () => {
      const { traceId, parentId, traceparent } = newTrace();
      const created = await t.request('POST', '/api/products', {
        token: t.adminToken,
        headers: { traceparent, tracestate: 'vendor=kept' },
        body: { name: 'traced', category: 'tracing', price: 1, stock: 1 },
      });
      assert.equal(created.status, 201, created.text);
      const hooked = (await r.waitFor('/joined', 1))[0]!;
      const eventId = hooked.event.id;

      const [, hookTrace, attemptId] = TRACEPARENT.exec(String(hooked.headers.traceparent ?? '')) ?? [];
      assert.equal(hookTrace, traceId, `the webhook's traceparent "${String(hooked.headers.traceparent)}"`);
      assert.equal(hooked.headers.tracestate, 'vendor=kept', "the writer's tracestate goes along");
      const natsHeaders = await natsHeadersOf(stream, eventId);
      const [, natsTrace, messageSpanId] = TRACEPARENT.exec(natsHeaders.get('traceparent') ?? '') ?? [];
      assert.equal(natsTrace, traceId, "the NATS message's traceparent header");
      assert.equal(natsHeaders.get('tracestate'), 'vendor=kept');

      const spans = await spansOf(
        traceId,
        (list) => list.some((span) => span.spanId === attemptId) && list.some((span) => span.spanId === messageSpanId),
      );
      const server = spans.find((span) => span.kind === SERVER && span.parentSpanId === parentId);
      assert.ok(server, `the request's server span:\n${describeSpans(spans)}`);
      for (const spanId of [attemptId, messageSpanId]) {
        const span = spans.find((item) => item.spanId === spanId)!;
        assert.ok(
          ancestorsOf(spans, span).includes(server),
          `${span.name}'s parents reach the request's server span:\n${describeSpans(spans)}`,
        );
      }
      const message = spans.find((span) => span.spanId === messageSpanId)!;
      assert.equal(message.kind, PRODUCER);
      assert.equal(message.name, `send ${stream.prefix}.product.created`);
      assert.deepEqual(
        [
          message.attributes['messaging.system'],
          message.attributes['messaging.destination.name'],
          message.attributes['messaging.operation.type'],
          message.attributes['messaging.message.id'],
        ],
        ['nats', `${stream.prefix}.product.created`, 'send', eventId],
      );
    });

    it("joins a retry, claimed later from the deliveries, to the writer's trace too", async () => {
      const endpoint = await createEndpoint(t, `${r.url}/retried`);
      r.script('/retried', { status: 500 }, { status: 200 });
      const { traceId, traceparent } = newTrace();
      const created = await t.request('POST', '/api/products', {
        token: t.adminToken,
        headers: { traceparent },
        body: { name: 'retried', category: 'tracing', price: 1, stock: 1 },
      });
      assert.equal(created.status, 201, created.text);
      const attempts = await r.waitFor('/retried', 2);
      const traces = attempts.map((attempt) => TRACEPARENT.exec(String(attempt.headers.traceparent ?? ''))?.[1]);
      assert.deepEqual(traces, [traceId, traceId], "both attempts in the writer's trace");
      await t.request('DELETE', `/api/webhooks/${endpoint.id}`, { token: t.adminToken });
    });

    it('runs the workers a traced commit wakes outside its trace: none of their statements join it', async () => {
      const tracing = activeTracing()!;
      const { events } = t.server.app.services;
      let writerTrace = '';
      // A traced operation that commits an event and stays open while the fan-out and the publisher,
      // woken by its commit (50 ms later), take and move their place.
      await tracing.wrap('writes an event', {}, async () => {
        writerTrace = TRACEPARENT.exec(tracing.activeContext()!.traceparent)![1]!;
        await events.transaction(t.server.db, (trx) => events.record(trx, 'product.deleted', { id: 424242 }));
        await r.waitFor('/joined', 2);
        await sleep(200);
      })();
      const spans = await spansOf(writerTrace, (list) => list.some((span) => span.name === 'writes an event'));
      const theirs = spans.filter((span) => /event_consumers|webhook_deliveries/.test(JSON.stringify(span.attributes)));
      assert.deepEqual(theirs, [], `the workers' statements in the writer's trace:\n${describeSpans(theirs)}`);
      assert.ok(
        spans.some((span) => span.attributes['http.request.method'] === 'POST'),
        `the webhook attempt of the event is in it:\n${describeSpans(spans)}`,
      );
    });
  });
}
