import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import Fastify, { type FastifyInstance } from 'fastify';
import { request } from 'node:http';
import { connect } from 'node:net';
import { registerRequestSpans } from './request-spans.ts';

/**
 * The request span's own rules on a bare Fastify app over real HTTP: the ones the service's routes cannot
 * show on demand (a 5xx answer), and the context the handler runs in. The service's spans, end to end on
 * both databases: test/tracing/spans.test.ts.
 */
describe('tracing: the request span', () => {
  const exporter = new InMemorySpanExporter();
  const contexts = new AsyncLocalStorageContextManager().enable();
  let app: FastifyInstance;
  let url: string;
  let activeInHandler: string | undefined;
  const activeById = new Map<string, string | undefined>();
  let slowStarted: () => void = () => {};
  let probeSaw: string | undefined;

  before(async () => {
    context.setGlobalContextManager(contexts);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    const provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'test' }),
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    app = Fastify();
    registerRequestSpans(app, provider.getTracer('test'), contexts);
    app.get('/fails/:id', async () => {
      throw new RangeError('out of range');
    });
    app.get<{ Params: { id: string } }>('/sees/:id', async (request) => {
      activeInHandler = trace.getSpan(context.active())?.spanContext().spanId;
      activeById.set(request.params.id, activeInHandler);
      return { ok: true };
    });
    app.get('/healthz', async () => {
      probeSaw = trace.getSpan(context.active())?.spanContext().spanId;
      return { ok: true };
    });
    app.post('/body', async (request) => {
      activeInHandler = trace.getSpan(context.active())?.spanContext().spanId;
      return { size: JSON.stringify(request.body).length };
    });
    app.get('/slow/:id', async () => {
      slowStarted();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { ok: true };
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await app.close();
    context.disable();
    propagation.disable();
  });

  it('marks a 5xx answer ERROR with the error type and no message', async () => {
    exporter.reset();
    const answer = await fetch(`${url}/fails/7?secret=1`);
    assert.equal(answer.status, 500);
    const [span] = exporter.getFinishedSpans();
    assert.equal(span?.name, 'GET /fails/:id');
    assert.deepEqual(span?.status, { code: SpanStatusCode.ERROR });
    assert.equal(span?.attributes['error.type'], 'RangeError');
    assert.equal(span?.attributes['http.response.status_code'], 500);
    assert.equal(span?.attributes['url.path'], '/fails/7');
  });

  it('ends the span of a request whose caller left before the answer, ERROR with error.type aborted', async () => {
    exporter.reset();
    const started = new Promise<void>((resolve) => (slowStarted = resolve));
    const leaving = new AbortController();
    const answer = fetch(`${url}/slow/3`, { signal: leaving.signal }).catch((error: unknown) => error);
    await started;
    leaving.abort();
    assert.ok((await answer) instanceof Error, 'the caller gave up');
    await new Promise((resolve) => setTimeout(resolve, 400));
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(
      spans.map((span) => span.name),
      ['GET /slow/:id'],
      'one span, ended once',
    );
    assert.deepEqual(spans[0]!.status, { code: SpanStatusCode.ERROR });
    assert.equal(spans[0]!.attributes['error.type'], 'aborted');
    assert.equal(spans[0]!.attributes['http.response.status_code'], undefined);
  });

  it("runs the handler in the request span's context when the body came in later reads than the headers", async () => {
    exporter.reset();
    activeInHandler = undefined;
    const { hostname, port } = new URL(url);
    const body = JSON.stringify({ text: 'x'.repeat(100_000) });
    const status = await new Promise<number>((resolve, reject) => {
      const sending = request(
        {
          host: hostname,
          port,
          method: 'POST',
          path: '/body',
          headers: { 'content-type': 'application/json', 'content-length': body.length },
        },
        (answer) => {
          answer.resume();
          answer.on('end', () => resolve(answer.statusCode ?? 0));
        },
      );
      sending.on('error', reject);
      sending.flushHeaders();
      // The headers alone first, then another request, then the body: read in the connection's context.
      setTimeout(() => {
        fetch(`${url}/sees/2`)
          .then(() => sending.end(body))
          .catch(reject);
      }, 50);
    });
    assert.equal(status, 200);
    const posted = exporter.getFinishedSpans().find((span) => span.name === 'POST /body');
    assert.ok(posted, 'the POST has its span');
    assert.equal(activeInHandler, posted.spanContext().spanId);
  });

  it('gives each of two requests pipelined in one packet its own trace, and each handler its own span', async () => {
    exporter.reset();
    activeById.clear();
    const { hostname, port } = new URL(url);
    const traceparent = `00-${'c'.repeat(32)}-${'d'.repeat(16)}-01`;
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        // The first continues a caller's trace, the second has none: it must not land in the first's.
        socket.write(
          `GET /sees/11 HTTP/1.1\r\nHost: x\r\ntraceparent: ${traceparent}\r\n\r\n` +
            'GET /sees/12 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.equal(answers.match(/HTTP\/1\.1 200/g)?.length, 2, answers);
    const spans = exporter.getFinishedSpans();
    const first = spans.find((span) => span.attributes['url.path'] === '/sees/11');
    const second = spans.find((span) => span.attributes['url.path'] === '/sees/12');
    assert.ok(first && second, 'both requests have their span');
    assert.equal(first.spanContext().traceId, 'c'.repeat(32));
    assert.notEqual(second.spanContext().traceId, 'c'.repeat(32), "the second request is not in the first's trace");
    assert.equal(second.parentSpanContext, undefined);
    assert.equal(activeById.get('11'), first.spanContext().spanId);
    assert.equal(activeById.get('12'), second.spanContext().spanId);
  });

  it("runs a probe pipelined after a traced request outside that request's trace", async () => {
    probeSaw = 'unset';
    const { hostname, port } = new URL(url);
    const answers = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => {
        socket.write(
          `GET /sees/21 HTTP/1.1\r\nHost: x\r\ntraceparent: 00-${'e'.repeat(32)}-${'f'.repeat(16)}-01\r\n\r\n` +
            'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        );
      });
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    assert.equal(answers.match(/HTTP\/1\.1 200/g)?.length, 2, answers);
    assert.equal(probeSaw, undefined, 'the probe ran in the root context');
  });

  it('starts a trace of its own for a malformed, zero, oversized or hostile traceparent, and answers', async () => {
    const hostile = [
      `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`,
      `00-${'a'.repeat(32)}-${'0'.repeat(16)}-01`,
      `ff-${'a'.repeat(32)}-${'b'.repeat(16)}-01`,
      `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01-${'x'.repeat(6000)}`,
      'x'.repeat(6000),
      `-1-${'a'.repeat(32)}-${'b'.repeat(16)}-99999999999999999999`,
      '00-__proto__-constructor-01',
    ];
    for (const traceparent of hostile) {
      exporter.reset();
      const answer = await fetch(`${url}/sees/1?q=${'9'.repeat(2000)}`, {
        headers: { traceparent, tracestate: `k=${'v'.repeat(4000)}`, baggage: 'a=%00'.repeat(200) },
      });
      assert.equal(answer.status, 200, traceparent.slice(0, 40));
      const [span] = exporter.getFinishedSpans();
      assert.ok(span, traceparent.slice(0, 40));
      assert.equal(span.parentSpanContext, undefined, traceparent.slice(0, 40));
      assert.match(span.spanContext().traceId, /^(?!0+$)[0-9a-f]{32}$/);
    }
  });

  it("runs the handler in the request span's context, under the caller's traceparent, and leaves probes untraced", async () => {
    exporter.reset();
    const traceId = 'a'.repeat(32);
    const answer = await fetch(`${url}/sees/1`, { headers: { traceparent: `00-${traceId}-${'b'.repeat(16)}-01` } });
    assert.equal(answer.status, 200);
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(
      spans.map((span) => span.name),
      ['GET /sees/:id'],
    );
    assert.equal(spans[0]!.spanContext().traceId, traceId);
    assert.equal(spans[0]!.parentSpanContext?.spanId, 'b'.repeat(16));
    assert.equal(activeInHandler, spans[0]!.spanContext().spanId);
    assert.equal(spans[0]!.status.code, SpanStatusCode.UNSET);
  });
});
