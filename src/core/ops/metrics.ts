import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { observeQueries, poolStatsOf, type Db } from '../db/database.ts';
import type { Access } from '../http/fastify-types.ts';
import { REPLAYED_HEADER } from '../idempotency/idempotency.http.ts';
import { counterTally, histogramTally, type CounterCell, type HistogramCell, type Tally } from './tallies.ts';

/*
 * Why hand-written hooks and not `fastify-metrics` (evaluated at 14.1.0, its README and code): its
 * duration histogram always carries the status code (renamable, groupable into 2xx/4xx, never
 * dropped), which multiplies the duration series by the statuses each route answers and breaks the
 * bound below; it times every request with two hooks (onRequest starts a timer closure kept in a
 * WeakMap, onResponse observes), where one onResponse hook reading `reply.elapsedTime` does; and
 * 14.x brings a second Prometheus client (@prometheus-io/client) beside prom-client, with a default
 * registry shared by every app of a process (the tests run several). Its route label override and
 * custom labels would have fitted the version label, and its endpoint option the access rules; the
 * rest of this file (database, GraphQL, rate limits, shedding, jobs, replays) it does not cover.
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

/**
 * Gauges a module reads on each scrape (the report queue: one query). `read` is called at most once
 * per scrape for all of them; a read that fails or takes over a second leaves the previous values.
 */
export interface ScrapedGauges {
  /** Gauge name → help text. */
  gauges: Record<string, string>;
  read(): Promise<Record<string, number>>;
}

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
  /** Counts one answered request (registerMetrics' onResponse hook). */
  observe(request: FastifyRequest, reply: FastifyReply): void;
  /** Stops observing the database (on close). */
  stop(): void;
}

/**
 * Buckets of `http_request_duration_seconds`: a decade apart (fast ≤ 5 ms, normal ≤ 50 ms, slow ≤
 * 500 ms, beyond), so a timed route costs 6 series (3 bounds, +Inf, sum, count): the 42 routes timed
 * today make 252, under the 300 the issue set, with room for 7 more (metrics-families.test.ts).
 * A fourth bucket would make 294. Latency per version or status is not kept: it would multiply these.
 */
export const HTTP_DURATION_BUCKETS = [0.005, 0.05, 0.5];
const STATEMENT_BUCKETS = [0.0005, 0.002, 0.01, 0.05, 0.25, 1];
/** GraphQL operation names become labels only this many per process; later ones are `(other)`. */
export const MAX_OPERATION_NAMES = 100;
export const MAX_OPERATION_NAME_LENGTH = 64;

const VERSION_PREFIX = /^\/api\/v\d+(?=\/|$)/;
const UNMATCHED = 'unmatched';

interface RouteInfo {
  /** The pattern without its version prefix: `/api/v2/users/:userId` → `/api/users/:userId`. */
  label: string;
  api: boolean;
  timed: boolean;
}

const STATEMENT_KINDS = ['select', 'insert', 'update', 'delete', 'transaction', 'other'] as const;
type StatementKind = (typeof STATEMENT_KINDS)[number];
const TRANSACTION_WORDS = ['begin', 'commit', 'rollback', 'start transaction', 'savepoint', 'release'];

/**
 * The statement's kind from its first word. It runs for every statement: Kysely writes keywords in
 * lower case, so `startsWith` answers without allocating; other text (raw SQL) is lowered first.
 */
export function statementKind(sql: string): StatementKind {
  for (let pass = 0; pass < 2; pass += 1) {
    const text = pass === 0 ? sql : sql.slice(0, 20).trimStart().toLowerCase();
    if (text.startsWith('select')) return 'select';
    if (text.startsWith('insert')) return 'insert';
    if (text.startsWith('update')) return 'update';
    if (text.startsWith('delete')) return 'delete';
    if (TRANSACTION_WORDS.some((word) => text.startsWith(word))) return 'transaction';
  }
  return 'other';
}

/** Builds the registry and every family; `registerMetrics` then hooks it into the app. */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const timed = options.timed ?? (() => true);

  // Counted and timed through tallies (tallies.ts): every request feeds both.
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by route pattern (without the version prefix), REST version and status',
    labelNames: ['method', 'route', 'version', 'status_code'] as const,
    registers,
    collect(): void {
      requestTally.flush();
    },
  });
  const requestTally: Tally<CounterCell, 'method' | 'route' | 'version' | 'status_code'> = counterTally(() => requests);
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an API or GraphQL request, by route pattern (without the version prefix)',
    labelNames: ['method', 'route'] as const,
    buckets: HTTP_DURATION_BUCKETS,
    registers,
    collect(): void {
      durationTally.flush();
    },
  });
  const durationTally: Tally<HistogramCell, 'method' | 'route'> = histogramTally(() => duration);
  const operations = new Counter({
    name: 'graphql_operations_total',
    help: 'GraphQL requests by operation (names of validated operations only), type and outcome',
    labelNames: ['operation_name', 'operation_type', 'outcome'] as const,
    registers,
    collect(): void {
      operationTally.flush();
    },
  });
  const operationTally: Tally<CounterCell, 'operation_name' | 'operation_type' | 'outcome'> = counterTally(() => operations);
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

  const routes = new Map<string, RouteInfo>();
  const routeInfo = (pattern: string | undefined): RouteInfo => {
    const key = pattern ?? UNMATCHED;
    let info = routes.get(key);
    if (!info) {
      const label = pattern === undefined ? UNMATCHED : pattern.replace(VERSION_PREFIX, '/api');
      info = { label, api: label === '/api' || label.startsWith('/api/'), timed: pattern !== undefined && timed(label) };
      routes.set(key, info);
    }
    return info;
  };

  const operationNames = new Set<string>();
  const operationLabel = (name: string): string => {
    const cut = name.slice(0, MAX_OPERATION_NAME_LENGTH);
    if (operationNames.has(cut)) return cut;
    if (operationNames.size >= MAX_OPERATION_NAMES) return '(other)';
    operationNames.add(cut);
    return cut;
  };

  return {
    contentType: registry.contentType,
    render: () => registry.metrics(),
    rateLimited: (limit) => rateLimitChildren.get(limit)?.inc(),
    shed: () => sheds.inc(),
    addScrapedGauges: (source) => addScrapedGauges(source, registers),
    stop: () => stop(),
    observe(request, reply) {
      const info = routeInfo(request.routeOptions.url);
      const { method } = request;
      const status = reply.statusCode;
      const version = info.api ? request.apiVersion : undefined;
      requestTally
        .cell(`${method} ${status} ${version} ${info.label}`, () =>
          info.api ? { method, route: info.label, version, status_code: status } : { method, route: info.label, status_code: status },
        )
        .add();
      if (info.timed) durationTally.cell(`${method} ${info.label}`, () => ({ method, route: info.label })).observe(reply.elapsedTime / 1000);
      const operation = request.graphqlOperation;
      if (operation) {
        const name = operation.outcome === 'rejected' ? '(none)' : operationLabel(operation.name);
        const { type, outcome } = operation;
        operationTally.cell(`${outcome} ${type} ${name}`, () => ({ operation_name: name, operation_type: type, outcome })).add();
      }
      if (request.method === 'POST' && reply.getHeader(REPLAYED_HEADER) === 'true') replays.inc({ route: info.label });
    },
  };
}

/** Pool gauges read on scrape, and a statement histogram fed by the database's statement hook. */
function observeDatabase(db: Db, registers: Registry[]): () => void {
  const statements = new Histogram({
    name: 'db_statement_duration_seconds',
    help: 'Time of each database statement, by kind (first keyword) and outcome',
    labelNames: ['statement', 'outcome'] as const,
    buckets: STATEMENT_BUCKETS,
    registers,
    collect(): void {
      statementTally.flush();
    },
  });
  // One cell per label pair, made once: the hook runs for every statement (tallies.ts).
  const statementTally: Tally<HistogramCell, 'statement' | 'outcome'> = histogramTally(() => statements);
  const cellsOf = (outcome: 'ok' | 'error') =>
    new Map(STATEMENT_KINDS.map((kind) => [kind, statementTally.cell(`${kind} ${outcome}`, () => ({ statement: kind, outcome }))]));
  const ok = cellsOf('ok');
  const failed = cellsOf('error');
  new Gauge({
    name: 'db_pool_connections',
    help: 'Database connections by state: in_use (lent out), idle (open, free)',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const stats = poolStatsOf(db);
      this.set({ state: 'in_use' }, stats.total - stats.idle);
      this.set({ state: 'idle' }, stats.idle);
    },
  });
  new Gauge({
    name: 'db_pool_waiting_requests',
    help: 'Callers waiting for a database connection',
    registers,
    collect() {
      this.set(poolStatsOf(db).waiting);
    },
  });
  new Gauge({
    name: 'db_pool_max_connections',
    help: 'The most connections the pool opens (DATABASE_POOL_SIZE; 1 on SQLite)',
    registers,
    collect() {
      this.set(poolStatsOf(db).max);
    },
  });
  return observeQueries(db, (sql, durationMs, error) => {
    (error ? failed : ok).get(statementKind(sql))!.observe(durationMs / 1000);
  });
}

const SCRAPE_READ_TIMEOUT_MS = 1000;

function addScrapedGauges(source: ScrapedGauges, registers: Registry[]): void {
  let pending: { at: number; values: Promise<Record<string, number> | null> } | undefined;
  const values = () => {
    const now = Date.now();
    if (!pending || now - pending.at > SCRAPE_READ_TIMEOUT_MS) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), SCRAPE_READ_TIMEOUT_MS);
      });
      const read = source.read().catch(() => null);
      pending = { at: now, values: Promise.race([read, timeout]).finally(() => clearTimeout(timer)) };
    }
    return pending.values;
  };
  for (const [name, help] of Object.entries(source.gauges)) {
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        const value = (await values())?.[name];
        if (value !== undefined) this.set(value);
      },
    });
  }
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
    app.get('/metrics', { config: { access: route, cacheControl: 'no-store' }, schema: { hide: true } }, async (_request, reply) => {
      reply.type(metrics.contentType);
      return metrics.render();
    });
  }
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
