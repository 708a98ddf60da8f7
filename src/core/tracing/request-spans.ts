import { propagation, ROOT_CONTEXT, type Attributes, SpanStatusCode, type Span, type Tracer } from '@opentelemetry/api';
import type { ATTR_HTTP_REQUEST_METHOD, ATTR_HTTP_ROUTE, ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import { ATTR_ERROR_TYPE, ATTR_HTTP_RESPONSE_STATUS_CODE } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Socket } from 'node:net';
import { acceptsEventStream } from '../http/event-stream.ts';
import { startServerSpan } from './lean-tracer.ts';
import { enterSpan, type ContextEntry } from './linked-context.ts';

/** Probes and the scrape: polled every few seconds, a trace each would drown the requests worth reading. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

/** `error.type` of a request whose caller left before its answer (a low-cardinality identifier, as the conventions ask). */
const ABORTED = 'aborted';

/** The request's server span, on the request (decorated, so every request object keeps one shape). */
const SPAN = Symbol('request span');
/** The error a failed request was answered with (its type names a 5xx span's `error.type`). */
const FAILURE = Symbol('request failure');

interface TracedRequest extends FastifyRequest {
  [SPAN]: Span | undefined;
  [FAILURE]: Error | undefined;
}

/** `{method} {route}` of each route and method seen, made once (the method alone when no route matched). */
const names = new Map<string, Map<string, string>>();

function nameOf(method: string, route: string | undefined): string {
  if (route === undefined) return method;
  let byMethod = names.get(route);
  if (!byMethod) names.set(route, (byMethod = new Map()));
  let name = byMethod.get(method);
  if (name === undefined) byMethod.set(method, (name = `${method} ${route}`));
  return name;
}

/** The request span's first attributes, named by the conventions' constants (the literal below is checked against them). */
type ServerAttributes = Attributes & {
  [ATTR_HTTP_REQUEST_METHOD]: string;
  [ATTR_URL_PATH]: string;
  [ATTR_HTTP_ROUTE]?: string;
};

/**
 * A server span per HTTP request, by the conventions for HTTP servers: named `{method} {route}` (the
 * route's template; the method alone when no route matched), with `http.request.method`, `http.route`,
 * `url.path` (never the query string: a GET GraphQL query's variables would be in it) and
 * `http.response.status_code`, ERROR with `error.type` on a 5xx answer only (a 4xx is the client's), or
 * when the caller left before its answer (`error.type` `aborted`). It
 * continues an incoming `traceparent` (the global propagator, W3C trace context and baggage) and is the
 * active span for the rest of the request, so every span and log line of the request is under it. It
 * starts in the first `onRequest` hook (registered before any other) and ends once the answer is written.
 * Written here rather than taken from @fastify/otel: README.md here, "Dependencies".
 */
export function registerRequestSpans(app: FastifyInstance, tracer: Tracer, contexts: ContextEntry): void {
  // The headers the propagator reads: extraction is skipped when none is present (most requests).
  const fields = propagation.fields();
  app.decorateRequest(SPAN, undefined);
  app.decorateRequest(FAILURE, undefined);

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && UNTRACED.has(route)) return done();
    const headers = request.headers;
    const parent = hasAny(headers, fields) ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    const url = request.url;
    const query = url.indexOf('?');
    const method = request.method;
    const path = query < 0 ? url : url.slice(0, query);
    // Literal keys: one shape, made from the literal's template (computed keys are defined one by one).
    const attributes: ServerAttributes =
      route === undefined
        ? { 'http.request.method': method, 'url.path': path }
        : { 'http.request.method': method, 'url.path': path, 'http.route': route };
    const span = startServerSpan(tracer, nameOf(method, route), attributes, parent);
    (request as TracedRequest)[SPAN] = span;
    watch(request.raw.socket, span);
    // The hooks and the handler run from here, in the request's context.
    enterSpan(contexts, parent, span, acceptsEventStream(headers.accept));
    done();
  });

  app.addHook('onError', (request, _reply, error, done) => {
    (request as TracedRequest)[FAILURE] = error;
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    const span = (request as TracedRequest)[SPAN];
    if (span !== undefined) {
      (request.raw.socket as WatchedSocket)[UNANSWERED]?.delete(span);
      endRequestSpan(span, reply, (request as TracedRequest)[FAILURE]);
    }
    done();
  });
}

/**
 * The spans of a connection's requests not answered yet (several when its caller pipelines): watched
 * from the connection (one listener a connection, where Fastify's `onRequestAbort` adds one a request).
 */
const UNANSWERED = Symbol('unanswered requests');

interface WatchedSocket extends Socket {
  [UNANSWERED]?: Set<Span>;
}

function watch(socket: WatchedSocket, span: Span): void {
  let unanswered = socket[UNANSWERED];
  if (unanswered === undefined) {
    socket[UNANSWERED] = unanswered = new Set();
    socket.on('close', endUnanswered);
  }
  unanswered.add(span);
}

/**
 * A caller gone before its answer was written (a client's timeout, often a slow request's trace): no
 * `onResponse` comes, so the span ends here, ERROR with `error.type` `aborted` and no status code.
 */
function endUnanswered(this: WatchedSocket): void {
  for (const span of this[UNANSWERED]!) {
    if (!span.isRecording()) continue;
    span.setAttribute(ATTR_ERROR_TYPE, ABORTED);
    span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  }
  this[UNANSWERED]!.clear();
}

/** Whether `headers` has one of `fields` (a loop: no closure made a request). */
function hasAny(headers: FastifyRequest['headers'], fields: readonly string[]): boolean {
  for (const field of fields) if (field in headers) return true;
  return false;
}

function endRequestSpan(span: Span, reply: FastifyReply, failure: Error | undefined): void {
  const status = reply.statusCode;
  span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, status);
  if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, failure?.name ?? String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}
