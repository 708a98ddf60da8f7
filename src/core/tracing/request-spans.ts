import { propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

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

/**
 * A server span per HTTP request, by the conventions for HTTP servers: named `{method} {route}` (the
 * route's template; the method alone when no route matched), with `http.request.method`, `http.route`,
 * `url.path` (never the query string: a GET GraphQL query's variables would be in it) and
 * `http.response.status_code`, ERROR with `error.type` on a 5xx answer only (a 4xx is the client's), or
 * when the caller left before its answer (`error.type` `aborted`). It continues an incoming `traceparent`
 * (the global propagator) and is the active span for the rest of the request: the first `onRequest` hook
 * (registered before any other) makes its context the current one with the context manager's `attach`
 * (`AsyncLocalStorage.enterWith`), so the other hooks, the body's reading, the handler and all they start
 * run in it. Not restored: what follows in the same turn is the server's own parsing, and the next
 * request starts from the connection's context (tests pipeline requests in one packet). A few hooks
 * rather than @fastify/otel: README.md here.
 */
export function registerRequestSpans(
  app: FastifyInstance,
  tracer: Tracer,
  contexts: Pick<AsyncLocalStorageContextManager, 'attach'>,
): void {
  // The headers the propagator reads: most requests carry none, and are not handed to it.
  const fields = propagation.fields();
  app.decorateRequest(SPAN, undefined);
  app.decorateRequest(FAILURE, undefined);

  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    if (route !== undefined && UNTRACED.has(route)) return done();
    const headers = request.headers;
    const parent = fields.some((field) => field in headers) ? propagation.extract(ROOT_CONTEXT, headers) : ROOT_CONTEXT;
    const url = request.url;
    const query = url.indexOf('?');
    const method = request.method;
    const attributes =
      route === undefined
        ? { [ATTR_HTTP_REQUEST_METHOD]: method, [ATTR_URL_PATH]: query < 0 ? url : url.slice(0, query) }
        : {
            [ATTR_HTTP_REQUEST_METHOD]: method,
            [ATTR_URL_PATH]: query < 0 ? url : url.slice(0, query),
            [ATTR_HTTP_ROUTE]: route,
          };
    const name = route === undefined ? method : `${method} ${route}`;
    const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
    (request as TracedRequest)[SPAN] = span;
    contexts.attach(trace.setSpan(parent, span));
    done();
  });

  app.addHook('onError', (request, _reply, error, done) => {
    (request as TracedRequest)[FAILURE] = error;
    done();
  });

  app.addHook('onRequestAbort', (request, done) => {
    const span = (request as TracedRequest)[SPAN];
    // A caller gone before its answer was written: no `onResponse` comes, so the span ends here.
    if (span?.isRecording()) {
      span.setAttribute(ATTR_ERROR_TYPE, ABORTED);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
    done();
  });

  app.addHook('onResponse', (request, reply, done) => {
    const span = (request as TracedRequest)[SPAN];
    if (span?.isRecording()) endRequestSpan(span, reply, (request as TracedRequest)[FAILURE]);
    done();
  });
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
