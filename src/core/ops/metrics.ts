import { createServer, type Server } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Access } from '../http/fastify-types.ts';

/** What a scrape reads: the registry of one app instance. */
export interface MetricsExporter {
  contentType: string;
  render(): Promise<string>;
}

/** Who may read `/metrics` on the main port; `none`: it is not served there (a METRICS_PORT is set). */
export type MetricsRoute = Extract<Access, 'public' | 'admin'> | 'none';

/**
 * DECISIONS §1: in production `/metrics` needs an admin token, unless a METRICS_PORT is set, which
 * takes it off the main port altogether (that port is meant to be reachable by the scraper only).
 */
export function metricsRouteFor(config: { NODE_ENV: string; METRICS_PORT?: number | undefined }): MetricsRoute {
  if (config.METRICS_PORT !== undefined) return 'none';
  return config.NODE_ENV === 'production' ? 'admin' : 'public';
}

/** Prometheus metrics for this app instance: request counts and a latency histogram by route. */
export function registerMetrics(app: FastifyInstance, route: MetricsRoute = 'public'): MetricsExporter {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const labelNames = ['method', 'route', 'status_code'] as const;
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests served',
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    // The route pattern, never the raw URL, keeps label cardinality bounded.
    const labels = { method: request.method, route: request.routeOptions.url ?? 'unmatched', status_code: reply.statusCode };
    requests.inc(labels);
    duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  const exporter: MetricsExporter = { contentType: registry.contentType, render: () => registry.metrics() };
  if (route !== 'none') {
    app.get('/metrics', { config: { access: route, cacheControl: 'no-store' }, schema: { hide: true } }, async (_request, reply) => {
      reply.type(exporter.contentType);
      return exporter.render();
    });
  }
  return exporter;
}

/**
 * The listener of METRICS_PORT: `GET /metrics` and nothing else, without a token (the port is
 * reachable by the scraper only). `server.ts` makes it listen and closes it on shutdown.
 */
export function createMetricsServer(exporter: MetricsExporter): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method not allowed\n');
      return;
    }
    exporter.render().then(
      (text) => response.writeHead(200, { 'content-type': exporter.contentType, 'cache-control': 'no-store' }).end(request.method === 'HEAD' ? undefined : text),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics unavailable\n'),
    );
  });
}
