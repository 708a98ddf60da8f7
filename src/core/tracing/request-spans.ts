import { FastifyOtelInstrumentation } from '@fastify/otel';
import { ATTR_URL_PATH } from '@opentelemetry/semantic-conventions';
import type { FastifyInstance } from 'fastify';

/** Probes and the scrape: polled every few seconds, a trace each would drown the requests worth reading. */
const UNTRACED = new Set(['/healthz', '/readyz', '/metrics']);

let instrumentation: FastifyOtelInstrumentation | undefined;

/**
 * A server span per HTTP request, by @fastify/otel (Fastify's own instrumentation): it continues an
 * incoming `traceparent`, sets `http.request.method`, `http.route` (the route's template) and
 * `http.response.status_code`, and makes the request's span the active one in the handler. We name the
 * span `{method} {route}` as the conventions say (its default is `request`), and keep the query string
 * out of `url.path` (its default is the whole URL: a GET GraphQL query's variables would be in it).
 */
export async function registerRequestSpans(app: FastifyInstance): Promise<void> {
  instrumentation ??= new FastifyOtelInstrumentation({
    registerOnInitialization: false,
    // No span per hook nor for the handler: a dozen spans per request of the app's own plumbing. The
    // request's context reaches the handler without them (its onRequest hook runs the rest of the
    // request in it; test/tracing/spans.test.ts checks the GraphQL operation's parent is the request).
    instrumentHooks: false,
    instrumentHandler: false,
    ignorePaths: (route) => UNTRACED.has(route.url ?? ''),
    requestHook(span, request) {
      const route = request.routeOptions.url;
      span.updateName(route ? `${request.method} ${route}` : request.method);
      const query = request.url.indexOf('?');
      if (query >= 0) span.setAttribute(ATTR_URL_PATH, request.url.slice(0, query));
    },
  });
  await app.register(instrumentation.plugin());
}
