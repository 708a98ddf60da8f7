import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import type { Db } from '../db/database.ts';
import type { Access } from '../http/fastify-types.ts';
import { REPLAYED_HEADER } from '../idempotency/idempotency.http.ts';
import { observeDatabase } from './database-metrics.ts';
import { liveMetrics, type LiveMetrics } from './live-metrics.ts';
import { requestMetrics } from './request-metrics.ts';
import { addScrapedGauges, type ScrapedGauges } from './scraped-gauges.ts';

/*
 * Why hand-written hooks and not `fastify-metrics` (evaluated at 14.1.0, its README and code): its
 * duration histogram always carries the status code (renamable, groupable into 2xx/4xx, never
 * dropped), which multiplies the duration series by the statuses each route answers and breaks the
 * bound of request-metrics.ts; it times every request with two hooks (onRequest starts a timer closure kept in a
 * WeakMap, onResponse observes), where one onResponse hook reading `reply.elapsedTime` does; and
 * 14.x brings a second Prometheus client (@prometheus-io/client) beside prom-client, with a default
 * registry shared by every app of a process (the tests run several). Its route label override and
 * custom labels would have fitted the version label, and its endpoint option the access rules; the
 * rest (database, GraphQL, rate limits, shedding, jobs, replays) it does not cover.
 *
 * The files: this one builds the registry and hooks it into the app; request-metrics.ts (requests,
 * durations, GraphQL operations), live-metrics.ts (GraphQL subscriptions and their connections),
 * database-metrics.ts (statements, pool), scraped-gauges.ts (gauges
 * modules read on scrape), tallies.ts (the cheap hot path in front of prom-client), metrics-server.ts
 * (the METRICS_PORT listener).
 */

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

/** Which budget refused a request (core/hardening/rate-limit.ts). */
export type RateLimitName = 'requests' | 'token_attempts' | 'graphql_cost';
const RATE_LIMITS: readonly RateLimitName[] = ['requests', 'token_attempts', 'graphql_cost'];

export interface MetricsOptions {
  /** The database whose pool and statements are measured. */
  db?: Db | undefined;
  /**
   * Whether requests to a route pattern (without its version prefix) get a duration. Probes, the
   * scrape and documentation pages are counted in `http_requests_total` only: every timed route
   * costs a label set of the duration histogram (one series per bucket, plus two).
   */
  timed?: (route: string) => boolean;
}

/** The app's metrics: the exporter, and what other parts of core report through (passed in by app.ts). */
export interface Metrics extends MetricsExporter {
  rateLimited(limit: RateLimitName): void;
  shed(): void;
  addScrapedGauges(source: ScrapedGauges): void;
  /** What the GraphQL subscriptions' transports and feed reader report. */
  live: LiveMetrics;
  /** A module's own counter or histogram (made with no registry), added to this one. */
  addMetric(metric: Metric): void;
  /** Counts one answered request (registerMetrics' onResponse hook). */
  observe(request: FastifyRequest, reply: FastifyReply): void;
  /** Stops observing the database (on close). */
  stop(): void;
}

/** Builds the registry and every family; `registerMetrics` then hooks it into the app. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];

  const observeRequest = requestMetrics(registers, options.timed ?? (() => true));
  const rateLimits = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by a rate limit',
    labelNames: ['limit'] as const,
    registers,
  });
  const sheds = new Counter({
    name: 'overload_shed_requests_total',
    help: 'Requests refused with 503 because the event loop lagged past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS',
    registers,
  });
  const replays = new Counter({
    name: 'idempotency_replays_total',
    help: 'Writes answered from the Idempotency-Key store instead of being run again',
    labelNames: ['route'] as const,
    registers,
  });
  const rateLimitChildren = new Map(RATE_LIMITS.map((limit) => [limit, rateLimits.labels({ limit })]));
  // Zero from the start, so a dashboard sees the series before the first event.
  sheds.inc(0);
  for (const child of rateLimitChildren.values()) child.inc(0);

  let stop = () => {};
  if (options.db) stop = observeDatabase(options.db, registers);

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    rateLimited: (limit) => rateLimitChildren.get(limit)?.inc(),
    shed: () => sheds.inc(),
    addScrapedGauges: (source) => addScrapedGauges(source, registers),
    addMetric: (metric) => registry.registerMetric(metric),
    live: liveMetrics(registers),
    stop: () => stop(),
    observe(request, reply) {
      const route = observeRequest(request, reply);
      if (request.method === 'POST' && reply.getHeader(REPLAYED_HEADER) === 'true') replays.inc({ route });
    },
  };
}

/**
 * Hooks the metrics into the app: one callback-style onResponse hook per request (labels from the
 * route pattern, never the raw URL), and `/metrics` on the main port unless `route` is `none`.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, route: MetricsRoute = 'public'): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request, reply);
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    metrics.stop();
    done();
  });
  if (route !== 'none') {
    app.get(
      '/metrics',
      { config: { access: route, cacheControl: 'no-store' }, schema: { hide: true } },
      async (_request, reply) => {
        reply.type(metrics.contentType);
        return metrics.render();
      },
    );
  }
}
