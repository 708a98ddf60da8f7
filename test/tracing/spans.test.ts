import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../support/graphql-test-client.ts';
import { newPost, subscribeWs, subscriptionsLive, until, wsClient } from '../support/live-clients.ts';
import {
  describeSpans,
  newTrace,
  SPAN_KIND,
  startOtlpCollector,
  type ReceivedSpan,
} from '../support/otlp-collector.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { addProduct, createEndpoint, FAST_WEBHOOKS } from '../support/webhooks.ts';

/**
 * DECISIONS §17, the spans themselves: the real app in this process, with tracing on (OTLP/JSON to a
 * collector of the test's own), on SQLite and PostgreSQL. Each request sends a `traceparent` of a
 * fresh trace, and the test reads that trace's spans as the collector received them.
 */

// Read by the SDK's batch span processor: batches every 50 ms instead of 5 s, so a test waits little.
process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
const collector = await startOtlpCollector();
after(() => collector.close());

const SERVER = SPAN_KIND.SERVER;
const CLIENT = SPAN_KIND.CLIENT;

/** The spans of `traceId` once `ready` holds of them. */
async function spansOf(traceId: string, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  const of = (spans: ReceivedSpan[]) => spans.filter((span) => span.traceId === traceId);
  await collector
    .until((spans) => ready(of(spans)))
    .catch((error: Error) => {
      throw new Error(`trace ${traceId}: ${error.message}`);
    });
  return of(collector.spans);
}

const named = (spans: ReceivedSpan[], name: string) => spans.find((span) => span.name === name);
const childrenOf = (spans: ReceivedSpan[], parent: ReceivedSpan | undefined) =>
  spans.filter((span) => parent && span.parentSpanId === parent.spanId);

const POSTS = 'query TracedPosts { posts(limit: 3) { id title author { id name } } }';

for (const dialect of DIALECTS) {
  describe(`tracing: spans (${dialect.name})`, { skip: dialect.skip }, () => {
    const system = dialect.name === 'postgres' ? 'postgresql' : 'sqlite';
    let t: TestServer;
    let r: WebhookReceiver;
    let author: { id: number; token: string };
    before(async () => {
      r = await startWebhookReceiver();
      t = await startTestServer(dialect, {
        ...GRAPHQL_TEST_ENV,
        ...FAST_WEBHOOKS,
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        // OTLP/protobuf, the default: our encoding, decoded by the collector (event-trace.test.ts sends JSON).
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      });
      author = await t.createUser({ name: 'Traced Author' });
      await newPost(t, author.token, author.id, 'A traced post');
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    const graphql = (traceparent: string, body: unknown, token = author.token) =>
      t.request('POST', '/graphql', { token, body, headers: { traceparent } });

    it("continues the caller's trace with a server span named by the route template, and a span per statement", async () => {
      const { traceId, parentId, traceparent } = newTrace();
      const answer = await t.request('GET', '/api/v2/users/1', { token: author.token, headers: { traceparent } });
      assert.equal(answer.status, 200, answer.text);
      const spans = await spansOf(traceId, (list) => list.some((span) => span.kind === SERVER));
      const server = named(spans, 'GET /api/v2/users/:userId');
      assert.ok(server, describeSpans(spans));
      assert.equal(server.kind, SERVER);
      assert.equal(server.parentSpanId, parentId, "the caller's span is the parent");
      assert.equal(server.service, 'content-service');
      assert.deepEqual(
        [
          server.attributes['http.request.method'],
          server.attributes['http.route'],
          server.attributes['http.response.status_code'],
        ],
        ['GET', '/api/v2/users/:userId', 200],
      );
      assert.equal(server.attributes['url.path'], '/api/v2/users/1');
      const statements = childrenOf(spans, server).filter((span) => span.attributes['db.system.name'] === system);
      assert.ok(statements.length > 0, `a statement span under the request:\n${describeSpans(spans)}`);
      for (const statement of statements) {
        assert.equal(statement.kind, CLIENT);
        assert.match(String(statement.attributes['db.query.text']), /^\s*(select|insert|update|delete|with)\b/i);
      }
    });

    it('names the span of a 4xx answer by its route and leaves its status unset (the client erred, not the server)', async () => {
      const missing = newTrace();
      const notFound = await t.request('GET', '/api/v2/posts/999999999', {
        token: author.token,
        headers: { traceparent: missing.traceparent },
      });
      assert.equal(notFound.status, 404);
      const [missed] = (await spansOf(missing.traceId, (list) => list.some((span) => span.kind === SERVER))).filter(
        (span) => span.kind === SERVER,
      );
      assert.equal(missed?.name, 'GET /api/v2/posts/:postId');
      assert.equal(missed?.attributes['http.response.status_code'], 404);
      assert.equal(missed?.status, 0, "a 4xx is the client's: the span keeps an unset status");
    });

    it('gives every GraphQL execution its operation span, a cached (second, identical) one too, with its statements under it', async () => {
      for (const round of ['first', 'cached']) {
        const { traceId, traceparent } = newTrace();
        const answer = await graphql(traceparent, { query: POSTS });
        assert.equal(answer.status, 200, answer.text);
        assert.equal(answer.body.errors, undefined, answer.text);
        const spans = await spansOf(traceId, (list) => list.some((span) => span.kind === SERVER));
        const server = named(spans, 'POST /graphql');
        const operation = named(spans, 'query TracedPosts');
        assert.ok(operation, `${round} execution: no operation span in\n${describeSpans(spans)}`);
        assert.equal(operation.parentSpanId, server?.spanId, `${round}: under the request's span`);
        assert.deepEqual(
          [operation.attributes['graphql.operation.type'], operation.attributes['graphql.operation.name']],
          ['query', 'TracedPosts'],
        );
        const statements = childrenOf(spans, operation);
        assert.ok(statements.length >= 2, `${round}: the posts and their authors read under the operation`);
        assert.ok(statements.every((span) => span.attributes['db.system.name'] === system));
      }
    });

    it('puts no bound value in any span: filters, variables and bodies stay out of statements and URLs', async () => {
      const secret = `unique-${randomBytes(6).toString('hex')}`;
      const traces = [newTrace(), newTrace(), newTrace(), newTrace()];
      const query = `query Secret($title: String) { posts(filter: { title: { eq: $title } }) { id } }`;
      const answers = [
        await t.request('GET', `/api/v2/products?category=${secret}`, {
          headers: { traceparent: traces[0]!.traceparent },
        }),
        await graphql(traces[1]!.traceparent, { query, variables: { title: secret } }),
        await t.request(
          'GET',
          `/graphql?query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify({ title: secret }))}`,
          {
            token: author.token,
            headers: { traceparent: traces[2]!.traceparent },
          },
        ),
        await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title: secret, content: secret },
          headers: { traceparent: traces[3]!.traceparent },
        }),
      ];
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200, 201],
      );
      const spans: ReceivedSpan[] = [];
      for (const { traceId } of traces) {
        spans.push(
          ...(await spansOf(
            traceId,
            (list) =>
              list.some((span) => span.kind === SERVER) && list.some((span) => 'db.query.text' in span.attributes),
          )),
        );
      }
      assert.ok(
        spans.some((span) => span.attributes['db.operation.name'] === 'INSERT'),
        `the insert was traced:\n${describeSpans(spans)}`,
      );
      const leaked = spans.filter((span) => JSON.stringify(span).includes(secret));
      assert.deepEqual(leaked, [], `a bound value reached a span:\n${describeSpans(leaked)}`);
      assert.ok(!collector.protobufBodies.some((body) => body.includes(secret)), 'nor any byte sent to the collector');
    });

    it("sends each webhook attempt's traceparent, naming its client span, to the receiver", async () => {
      const endpoint = await createEndpoint(t, `${r.url}/traced?token=hook-secret`);
      await addProduct(t, 'traced hook');
      const [request] = await r.waitFor('/traced?token=hook-secret', 1);
      const traceparent = String(request!.headers.traceparent ?? '');
      const [, traceId, spanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traceparent) ?? [];
      assert.ok(traceId && spanId, `a sampled traceparent on the request, got "${traceparent}"`);
      const spans = await spansOf(traceId, (list) => list.some((span) => span.spanId === spanId));
      const attempt = spans.find((span) => span.spanId === spanId)!;
      assert.equal(attempt.kind, CLIENT);
      assert.equal(attempt.name, 'POST');
      assert.deepEqual(
        [
          attempt.attributes['http.request.method'],
          attempt.attributes['url.full'],
          attempt.attributes['http.response.status_code'],
        ],
        ['POST', `${r.url}/traced?token=REDACTED`, 200],
      );
      assert.ok(!JSON.stringify(collector.spans).includes('hook-secret'), 'no query secret in any span');
      await t.request('DELETE', `/api/webhooks/${endpoint.id}`, { token: t.adminToken });
    });

    it("gives each subscription event's execution its operation span", async () => {
      const client = wsClient(t, author.token);
      try {
        const name = `TracedFeed_${dialect.name}`;
        const live = subscribeWs(client, `subscription ${name} { postCreated { id title } }`);
        await subscriptionsLive(t, 1);
        const title = `live-${randomBytes(4).toString('hex')}`;
        await newPost(t, author.token, author.id, title);
        await until(() => live.results.length > 0, 'the event');
        await collector.until((spans) => spans.some((span) => span.name === `subscription ${name}`));
        const operation = named(collector.spans, `subscription ${name}`)!;
        assert.equal(operation.attributes['graphql.operation.type'], 'subscription');
        live.stop();
      } finally {
        await client.dispose();
      }
    });
  });
}
