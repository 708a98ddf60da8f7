import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { after, before, describe, it } from 'node:test';
import { spawnServer, type ChildServer } from '../support/child-server.ts';
import { describeSpans, newTrace, SPAN_KIND, startOtlpCollector } from '../support/otlp-collector.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { FAST_WEBHOOKS } from '../support/webhooks.ts';

/**
 * DECISIONS §17 for the process as an operator runs it (`content-service serve` as a child process):
 * without an endpoint no tracing code is loaded; with one, OTLP/protobuf by default, the standard
 * variables honoured, trace ids in the log lines; and a collector that is down or never answers costs
 * the answers nothing.
 */

const ADMIN_PASSWORD = 'admin-password-123';
const MODULE_HOOK = new URL('../support/module-loads.ts', import.meta.url).pathname;
/** The SDK, exporters and instrumentations, and our own SDK side; not `@opentelemetry/api`, which prom-client loads. */
const TRACING_CODE = String.raw`/node_modules/@opentelemetry/(?!api/)|/src/core/tracing/(?!tracing(-types)?\.ts)`;

let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(`${tmpdir()}/content-service-tracing-`);
});
after(() => rm(dataDir, { recursive: true, force: true }));

async function serve(env: Record<string, string>): Promise<ChildServer> {
  return spawnServer({
    DATABASE_URL: `sqlite:${dataDir}/${randomBytes(4).toString('hex')}.db`,
    ADMIN_PASSWORD,
    ...env,
  });
}

async function stop(server: ChildServer | undefined): Promise<number | null> {
  if (!server) return null;
  server.process.kill('SIGTERM');
  return server.exited;
}

async function adminToken(url: string): Promise<string> {
  const answer = await fetch(`${url}/api/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'admin@example.com', password: ADMIN_PASSWORD }),
  });
  assert.equal(answer.status, 200);
  return ((await answer.json()) as { access_token: string }).access_token;
}

async function call(
  url: string,
  path: string,
  init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const answer = await fetch(`${url}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...init.headers,
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  await answer.arrayBuffer();
  return answer.status;
}

/** A REST read, a GraphQL query, a webhook endpoint and a write whose event it is delivered: the traced paths. */
async function exercise(server: ChildServer, receiver: WebhookReceiver, path: string): Promise<void> {
  const token = await adminToken(server.url);
  assert.equal(await call(server.url, '/api/v2/products?limit=2'), 200);
  assert.equal(
    await call(server.url, '/graphql', { token, body: { query: '{ posts(limit: 2) { id author { name } } }' } }),
    200,
  );
  assert.equal(
    await call(server.url, '/api/webhooks', { token, body: { url: `${receiver.url}${path}`, events: ['product.*'] } }),
    201,
  );
  const product = { name: 'traced', category: 'tracing', price: 1, stock: 1 };
  assert.equal(await call(server.url, '/api/products', { token, body: product }), 201);
  await receiver.waitFor(path, 1);
}

const loaded = (server: ChildServer) => server.lines.filter((line) => line.startsWith('module-loaded '));

describe('tracing: the process', () => {
  let receiver: WebhookReceiver;
  before(async () => {
    receiver = await startWebhookReceiver();
  });
  after(() => receiver?.close());

  it('loads no tracing code when no OTLP endpoint is set, and loads it when one is (keeping no span under always_off)', async () => {
    const watched = {
      ...FAST_WEBHOOKS,
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      NODE_OPTIONS: `--import ${MODULE_HOOK}`,
      MODULE_LOADS_MATCHING: TRACING_CODE,
    };
    let server: ChildServer | undefined;
    try {
      server = await serve(watched);
      await exercise(server, receiver, '/off');
      assert.deepEqual(loaded(server), [], 'tracing code loaded with tracing off');
    } finally {
      await stop(server);
    }
    // The same watch sees it load when tracing is on (the check above can fail).
    const collector = await startOtlpCollector();
    try {
      // With OTEL_TRACES_SAMPLER=always_off the code loads and no span is kept: the variable reaches the sampler.
      server = await serve({
        ...watched,
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_TRACES_SAMPLER: 'always_off',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_PROPAGATORS: 'tracecontext,b3',
      });
      await exercise(server, receiver, '/on');
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.deepEqual(collector.spans, [], 'no span exported under always_off');
      const modules = loaded(server).join('\n');
      for (const expected of [
        '@opentelemetry/sdk-trace-node',
        '@opentelemetry/exporter-trace-otlp-proto',
        '/src/core/tracing/request-spans.ts',
      ])
        assert.ok(modules.includes(expected), `${expected} loaded with tracing on`);
      assert.ok(!modules.includes('exporter-trace-otlp-http/'), 'only the exporter of the protocol in use');
      const warned = server.lines.find((line) => line.includes('OTEL_PROPAGATORS names propagators'));
      assert.ok(warned?.includes('"b3"'), 'a propagator the service lacks is named in a warning at the start');
    } finally {
      await stop(server);
      await collector.close();
    }
  });

  it('exports OTLP/protobuf by default with the OTEL_* headers, names the service from OTEL_* and puts trace ids on the log lines', async () => {
    const collector = await startOtlpCollector();
    let server: ChildServer | undefined;
    try {
      server = await serve({
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'content-service-under-test',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=tracing-test',
        OTEL_BSP_SCHEDULE_DELAY: '50',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=test-key',
        OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: '12',
      });
      const { traceId, parentId, traceparent } = newTrace();
      assert.equal(await call(server.url, '/api/v2/products?limit=1', { headers: { traceparent } }), 200);
      // Decoded from the protobuf (test/support/otlp-protobuf-decoder.ts): the request's server span in the
      // caller's trace, and its statements under it.
      const spans = await collector.until((all) =>
        all.some((span) => span.traceId === traceId && span.kind === SPAN_KIND.SERVER),
      );
      const request = spans.find((span) => span.traceId === traceId && span.kind === SPAN_KIND.SERVER)!;
      assert.equal(request.name, 'GET /api/v2/products');
      assert.equal(request.parentSpanId, parentId);
      assert.equal(request.service, 'content-service-under-test');
      assert.equal(request.attributes['http.response.status_code'], 200);
      assert.equal(
        request.attributes['url.path'],
        '/api/v2/prod',
        'OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT cuts values',
      );
      assert.ok(
        spans.some((span) => span.parentSpanId === request.spanId && span.attributes['db.system.name']),
        describeSpans(spans),
      );
      assert.ok(
        collector.contentTypes.every((type) => type === 'application/x-protobuf'),
        collector.contentTypes.join(),
      );
      assert.ok(
        collector.headers.every((sent) => sent['x-collector-key'] === 'test-key'),
        'the OTEL_EXPORTER_OTLP_HEADERS on every export',
      );
      const body = collector.protobufBodies.find((item) => item.includes(Buffer.from(traceId, 'hex')))!;
      assert.ok(
        body.includes(Buffer.from('deployment.environment.name')) && body.includes(Buffer.from('tracing-test')),
      );

      // Log lines are written in batches up to 100 ms late (core/ops/log-batches.ts): the spans can come first.
      const logged = (item: string) => item.includes('"request completed"') && item.includes(traceId);
      const lineDeadline = Date.now() + 5_000;
      while (!server.lines.some(logged) && Date.now() < lineDeadline)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const line = server.lines.find(logged);
      assert.ok(line, `the access-log line of the request carries its trace id:\n${server.lines.slice(-5).join('\n')}`);
      const fields = JSON.parse(line) as { trace_id?: string; span_id?: string };
      assert.equal(fields.trace_id, traceId);
      assert.match(fields.span_id ?? '', /^[0-9a-f]{16}$/);
      const untraced = server.lines.find((item) => item.includes('Server listening'));
      assert.ok(untraced && !untraced.includes('trace_id'), 'a line outside any request has none');
    } finally {
      await stop(server);
      await collector.close();
    }
  });

  for (const collectorState of ['never answers', 'refuses connections'] as const) {
    it(`answers as fast when the collector ${collectorState}, and stops cleanly`, async () => {
      const sockets = new Set<Socket>();
      const sink: Server = createServer((socket) => {
        sockets.add(socket); // accepted, read, never answered
        socket.resume();
      });
      await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
      const port = (sink.address() as { port: number }).port;
      if (collectorState === 'refuses connections') await new Promise((resolve) => sink.close(resolve));
      let server: ChildServer | undefined;
      try {
        server = await serve({
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
          // Exports as often and as small as it can: every request has an export under way.
          OTEL_BSP_SCHEDULE_DELAY: '10',
          OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '1',
        });
        const times: number[] = [];
        for (let i = 0; i < 40; i += 1) {
          const started = performance.now();
          assert.equal(await call(server.url, '/api/v2/products?limit=1'), 200);
          times.push(performance.now() - started);
        }
        times.sort((a, b) => a - b);
        // The exporter waits 10 s for an answer: a request that waited on it would take that long.
        assert.ok(times.at(-1)! < 2000, `slowest answer ${times.at(-1)!.toFixed(0)} ms`);
        if (collectorState === 'never answers') assert.ok(sockets.size > 0, 'the exporter did try the collector');
        const stopping = performance.now();
        assert.equal(await stop(server), 0, 'a clean stop');
        server = undefined;
        assert.ok(performance.now() - stopping < 8000, 'the last flush is bounded');
      } finally {
        await stop(server);
        for (const socket of sockets) socket.destroy();
        if (collectorState === 'never answers') await new Promise((resolve) => sink.close(resolve));
      }
    });
  }
});
