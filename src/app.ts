import { createMigrationGate, registerMigrationGate, type MigrationGate } from './core/ops/migration-gate.ts';
import { registerDeclaredParameters } from './core/http/declared-parameters.ts';
import { buildSerializer } from './core/http/response-serializers.ts';
import { registerListExport } from './core/export/list-export.ts';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from './config/config.ts';
import { registerAccessControl } from './core/access/access.ts';
import type { Db } from './core/db/database.ts';
import { registerHttpCaching } from './core/http/caching.ts';
import { registerErrorHandling } from './core/http/error-envelope.ts';
import { registerFrontDoor } from './core/http/front-door.ts';
import { registerSecurity } from './core/hardening/security.plugin.ts';
import { frameworkErrorAnswer } from './core/hardening/http-hardening.ts';
import './core/http/fastify-types.ts';
import { AccessLogController } from './core/http/access-log.ts';
import { registerJsonBody } from './core/http/json-body.ts';
import { registerLingeringClose } from './core/http/body-limit.ts';
import { registerBodyDeadline } from './core/http/body-deadline.ts';
import { registerRequestContext, requestIdOf } from './core/http/request-context.ts';
import { clientErrorAnswer } from './core/http/client-errors.ts';
import { demoToken } from './graphql/graphiql-demo-token.ts';
import { createRouteIndex, integerParamsOf } from './core/http/route-index.ts';
import { registerMethodCheck } from './core/http/method-check.ts';
import { registerVersionedApi } from './core/http/versioned-api.ts';
import { registerHealth } from './core/ops/health.ts';
import { createMetrics, metricsRouteFor, registerMetrics, type MetricsExporter } from './core/ops/metrics.ts';
import { loggerOptions } from './core/ops/logging.ts';
import { startTracing } from './core/tracing/tracing.ts';
import { registerOverloadProtection } from './core/ops/overload.ts';
import { compileRequestValidator } from './core/validation/request-validator.ts';
import { eventWebhooks } from './modules/events/event-webhooks.ts';
import { eventPayloadsOfModules, modules } from './modules/index.ts';
import { loadOpenApiExamples } from './openapi-examples.ts';
import { createServices, type Services } from './services.ts';
import { graphqlPlugin, graphqlSwitches, type GraphQLPluginOptions } from './graphql/graphql.plugin.ts';
import { registerAdminConsole } from './admin-console/admin-console.ts';
import type { LiveStatus } from './graphql/subscriptions/subscriptions.plugin.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const UNTIMED_HISTORY = /\/revisions(\/|$)|^\/api\/audit$|\/erase$/;

/**
 * The routes `http_request_duration_seconds` times (patterns without the version prefix): the REST
 * API and GraphQL. Probes, the scrape, the API documents, /docs and GraphiQL are counted, not timed;
 * so is the administration of webhook endpoints (an operator's rare calls: the deliveries have their
 * own families), and the history's reads and repairs (revisions, the audit, an erasure: DECISIONS §19,
 * an administrator's or an owner's occasional look back), which would take the series past the bound
 * metrics-families.test.ts keeps.
 */
export function isTimedRoute(route: string): boolean {
  if (route.startsWith('/api/webhooks') || UNTIMED_HISTORY.test(route)) return false;
  return route === '/graphql' || (route.startsWith('/api/') && !route.endsWith('/openapi.json'));
}

export interface App {
  http: FastifyInstance;
  services: Services;
  /** Read by the METRICS_PORT listener, which `server.ts` runs. */
  metrics: MetricsExporter;
  /** GraphQL subscriptions of this process (graphql/subscriptions/). */
  live: LiveStatus;
}

/** Builds the HTTP app over a ready database. Only `server.ts` listens and handles signals. */
export interface BuildOptions {
  /** Closed while the database migrates (server.ts listens first); absent: the database is ready. */
  migrations?: MigrationGate;
}

export async function buildApp(config: Config, db: Db, options: BuildOptions = {}): Promise<App> {
  const gate = options.migrations ?? createMigrationGate({ open: true });
  // Before the logger exists (its lines then carry trace ids); loads nothing unless OTEL_* asks (DECISIONS §17).
  const tracing = await startTracing(config);
  const serverTimeoutMs = Math.max(config.REQUEST_TIMEOUT_MS, config.IMPORT_UPLOAD_TIMEOUT_MS);
  const answerClientError = clientErrorAnswer(config.MAX_URL_LENGTH);
  const app = Fastify({
    // JSON lines written asynchronously, or pino-pretty on a terminal (core/ops/logging.ts).
    logger: config.LOG_LEVEL === 'silent' ? false : loggerOptions(config.LOG_LEVEL),
    // One line per request instead of two (core/http/access-log.ts).
    logController: new AccessLogController(),
    genReqId: requestIdOf,
    bodyLimit: BODY_LIMIT_BYTES,
    // Refused in the error envelope instead (core/ops/health.ts).
    return503OnClosing: false,
    // The longest any route allows (an import's upload); the others are held to theirs (core/http/body-deadline.ts).
    requestTimeout: serverTimeoutMs,
    connectionTimeout: 60_000,
    // Slow-header (slowloris) clients are cut off; Node checks the deadlines every second.
    http: { headersTimeout: config.HEADERS_TIMEOUT_MS, connectionsCheckingInterval: 1000 },
    trustProxy: config.TRUST_PROXY,
    frameworkErrors: frameworkErrorAnswer({ v1Sunset: config.API_V1_SUNSET }),
    // What Node's parser refuses (a URL over 16 KiB, too many header bytes), in the error envelope (core/http/client-errors.ts).
    clientErrorHandler: answerClientError,
    // Each response schema compiled once, not once per route and API version (core/http/response-serializers.ts).
    schemaController: { compilersFactory: { buildSerializer } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // First: its request spans wrap every route and hook registered after it.
  await tracing?.register(app, db);
  app.setValidatorCompiler(compileRequestValidator);
  // Before any route is added: each route reads only the query parameters it declares (DECISIONS §13).
  // Before the declared parameters: each list's `format` (DECISIONS §18) is one of its declared ones.
  registerListExport(app, db);
  registerDeclaredParameters(app);

  const routes = createRouteIndex();
  app.addHook('onRoute', (route) => {
    const versions = route.config?.openapi?.versions;
    for (const method of [route.method].flat())
      routes.add(method, route.url, integerParamsOf(route.schema?.params), versions);
  });

  const services = createServices(config, db);
  const metrics = createMetrics({ db, timed: isTimedRoute });
  for (const module of modules) {
    for (const source of module.metrics?.(services) ?? []) metrics.addScrapedGauges(source);
    for (const metric of module.instruments?.(services) ?? []) metrics.addMetric(metric);
  }
  registerJsonBody(app);
  registerLingeringClose(app);
  registerBodyDeadline(app, {
    requestTimeoutMs: config.REQUEST_TIMEOUT_MS,
    serverTimeoutMs,
    timedOut: answerClientError,
  });
  registerRequestContext(app);
  // Before anything that reads the database (the access check reads rights): nothing but health while migrating.
  registerMigrationGate(app, gate);
  // Before the access check: URL length, CORS, security headers and rate limits come first.
  const rateLimiter = await registerSecurity(app, config, services.tokens, { onRejected: metrics.rateLimited });
  app.decorate('chargeRateLimit', (request: FastifyRequest, reply: FastifyReply, weight: number) =>
    rateLimiter.charge(request, reply, weight),
  );
  // Before the access check and the body: a method or path no route serves is 405 or 404 at once.
  registerMethodCheck(app, routes);
  registerAccessControl(app, services.tokens, services.rights);
  registerHttpCaching(app);
  registerMetrics(app, metrics, metricsRouteFor(config));
  registerErrorHandling(app, routes);
  registerHealth(app, db, gate);
  // DECISIONS §16: a worker process serves only the probes and the scrape (anything else is the error
  // envelope's 404); an API process starts no background worker, and its events wait in the outbox.
  const servesApi = config.PROCESS_ROLE !== 'worker';
  if (servesApi) registerFrontDoor(app, { graphiql: graphqlSwitches(config).graphiql });
  if (servesApi && config.ADMIN_CONSOLE) registerAdminConsole(app);
  await registerOverloadProtection(app, config.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, metrics.shed);

  let live: LiveStatus = { subscriptions: 0, sockets: 0, answering: 0 };
  if (servesApi) {
    live = await registerApi(app, config, services, {
      live: metrics.live,
      charge: (reply, weight) => rateLimiter.charge(reply.request, reply, weight),
    });
  }
  if (config.PROCESS_ROLE !== 'api') runWorkers(app, config, services, gate);

  await app.ready();
  return { http: app, services, metrics, live };
}

/** The REST API under every version prefix, its documents and /docs, and GraphQL; what the subscriptions report. */
async function registerApi(
  app: FastifyInstance,
  config: Config,
  services: Services,
  options: Pick<GraphQLPluginOptions, 'live' | 'charge'>,
): Promise<LiveStatus> {
  // One route table for every REST version: registered under /api, /api/v1 and /api/v2.
  await registerVersionedApi(
    app,
    async (api) => {
      for (const module of modules) await module.routes?.register(api, services);
    },
    {
      v1Sunset: config.API_V1_SUNSET,
      examples: loadOpenApiExamples(),
      webhooks: eventWebhooks(eventPayloadsOfModules),
      // Development: /docs opens pre-authorised with a demo token, as GraphiQL does (never in production).
      demoToken: config.NODE_ENV === 'production' ? undefined : demoToken(services.auth),
    },
  );
  let live: LiveStatus = { subscriptions: 0, sockets: 0, answering: 0 };
  await app.register(graphqlPlugin, { config, services, ...options, onLive: (status) => (live = status) });
  return live;
}

/** Each module's background workers: started once listening and migrated, stopped on close before the database goes. */
function runWorkers(app: FastifyInstance, config: Config, services: Services, gate: MigrationGate): void {
  for (const module of modules) {
    for (const worker of module.workers?.(services, { config, log: app.log }) ?? []) {
      // Started once listening and migrated (a worker reads tables a pending migration may create).
      let closed = false;
      app.addHook('onListen', async () => {
        void gate.opened.then(() => (closed ? undefined : worker.start()));
      });
      app.addHook('onClose', async () => {
        closed = true;
        await worker.stop();
      });
    }
  }
}
