import cluster from 'node:cluster';
import type { Server as HttpServer } from 'node:http';
import { Server, type AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from './core/ops/logging.ts';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { developmentSecretWarning, needsDatabaseSecret, withDevelopmentSecret } from './config/development-secret.ts';
import { buildApp, type App } from './app.ts';
import { prepareFor, withKeptSecret } from './bootstrap.ts';
import { createDatabase, dialectOf, type Db } from './core/db/database.ts';
import { DEMO_PASSWORD, demoAccountsIn } from './demo/demo-data.ts';
import { graphqlSwitches } from './graphql/graphql.plugin.ts';
import { markDraining } from './core/ops/health.ts';
import { createMigrationGate } from './core/ops/migration-gate.ts';
import { createMetricsServer } from './core/ops/metrics-server.ts';

export interface RunningServer {
  app: App;
  db: Db;
  url: string;
  /** The METRICS_PORT listener's address, when one is configured. */
  metricsUrl?: string | undefined;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Migrations, admin bootstrap and demo data; a cluster's primary does them once instead. */
  prepare?: boolean;
}

/** Opens the database, migrates, bootstraps and listens: the whole start-up, shared with tests. */
export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const db = createDatabase(config.DATABASE_URL, {
    poolSize: config.DATABASE_POOL_SIZE,
    statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS,
  });
  // Listening before migrating: the process is alive (/healthz) while a large database migrates, and
  // answers 503 "migrating" on everything else until it is done (core/ops/migration-gate.ts).
  const prepare = options.prepare !== false;
  const gate = createMigrationGate({ open: !prepare });
  let app: App;
  try {
    app = await buildApp(config, db, { migrations: gate });
  } catch (error) {
    await db.destroy();
    throw error;
  }
  try {
    const secretWarning = developmentSecretWarning(config);
    if (secretWarning) app.http.log.warn(secretWarning);
    const url = await app.http.listen({ host: config.HOST, port: config.PORT });
    if (prepare) {
      await prepareFor(config, db, createLogger(config.LOG_LEVEL), gate);
      gate.open();
    }
    let metrics: { server: HttpServer; url: string } | undefined;
    if (config.METRICS_PORT !== undefined) metrics = await listenForMetrics(app, config.HOST, config.METRICS_PORT);
    // Not at LOG_LEVEL=silent (tests): the demo-account lookup would be wasted.
    if (config.LOG_LEVEL !== 'silent') {
      const demoAccounts = config.PROCESS_ROLE === 'worker' ? [] : await demoAccountsIn(db).catch(() => []);
      app.http.log.info(
        { database: dialectOf(db), role: config.PROCESS_ROLE },
        startupMessage(config, url, metrics?.url, demoAccounts),
      );
    }
    return {
      app,
      db,
      url,
      metricsUrl: metrics?.url,
      async close() {
        if (metrics) await closeMetrics(metrics.server);
        await app.http.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await app.http.close();
    await db.destroy();
    throw error;
  }
}

/** The database a URL names, without its credentials: `postgres 127.0.0.1:5432/content`, `sqlite ./data/content.db`. */
export function describeDatabase(databaseUrl: string): string {
  if (!/^postgres(ql)?:\/\//.test(databaseUrl)) return `sqlite ${databaseUrl.replace(/^sqlite:/, '')}`;
  try {
    const parsed = new URL(databaseUrl);
    return `postgres ${parsed.host}${parsed.pathname}`;
  } catch {
    return 'postgres';
  }
}

/**
 * The start-up line: what an operator (or a developer after `npm start`) needs first: the database,
 * where the API, its docs, GraphQL and GraphiQL are, and how to get a token. Never a password but
 * the published demo one.
 */
export function startupMessage(
  config: Config,
  url: string,
  metricsUrl: string | undefined,
  demoAccounts: string[],
): string {
  const metrics = `metrics ${metricsUrl ?? url}/metrics${metricsUrl === undefined && config.NODE_ENV === 'production' ? ' (admin token)' : ''}`;
  const database = describeDatabase(config.DATABASE_URL);
  if (config.PROCESS_ROLE === 'worker') {
    return `Running the background workers on ${database} (no API); health ${url}/healthz, ${url}/readyz; ${metrics}`;
  }
  const parts = [
    `Serving ${url} on ${database}`,
    `REST API ${url}/api (also /api/v1, /api/v2)`,
    `API docs ${url}/docs`,
    `GraphQL ${url}/graphql`,
  ];
  if (config.PROCESS_ROLE === 'api') {
    parts[0] += ' (API only: events wait in the outbox for a worker process, `content-service worker`)';
  }
  if (graphqlSwitches(config).graphiql) parts.push(`GraphiQL ${url}/graphiql`);
  parts.push(metrics);
  const password = config.ADMIN_PASSWORD
    ? 'password from ADMIN_PASSWORD'
    : 'password as printed once when the account was created';
  let signIn = `sign in: POST ${url}/api/auth/token {"email","password"} → Bearer token; administrator ${config.ADMIN_EMAIL.toLowerCase()} (${password})`;
  if (demoAccounts.length > 0) signIn += `; demo accounts ${demoAccounts.join(', ')} (password ${DEMO_PASSWORD})`;
  parts.push(signIn);
  return parts.join('; ');
}

/** METRICS_PORT (DECISIONS §1): `/metrics` on its own listener of the same host, off the main port. */
async function listenForMetrics(app: App, host: string, port: number): Promise<{ server: HttpServer; url: string }> {
  const server = createMetricsServer(app.metrics);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}` };
}

/** A scraper's keep-alive connection would hold `close()` open: idle ones are closed with it. */
function closeMetrics(server: HttpServer): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return closed;
}

/** The longest the server waits, port closed, for accepted connections to deliver their request and go. */
const DRAIN_MAX_MS = 1000;

/**
 * Closing at once dropped requests sent before the signal (test/reliability/graceful-shutdown.test.ts):
 * `http.Server.close()` destroys every connection without a request in progress, including ones
 * accepted a moment ago whose request is still unread (a busy event loop reads late); their clients
 * see a reset. So: report not ready, close the port only (new connections are refused), let accepted
 * connections deliver and finish their requests (briefly: keep-alive ones would never leave), then
 * close as before (idle connections closed, requests in flight completed).
 */
async function drain(server: RunningServer): Promise<void> {
  const http = server.app.http.server;
  markDraining(server.app.http);
  Server.prototype.close.call(http);
  const deadline = Date.now() + DRAIN_MAX_MS;
  const open = () => new Promise<number>((resolve) => http.getConnections((_error, count) => resolve(count ?? 0)));
  while (Date.now() < deadline && (await open()) > 0) await sleep(20);
}

/**
 * SIGTERM and SIGINT stop the server: no new connections, in-flight requests finish, then exit 0 (exit 1
 * after SHUTDOWN_TIMEOUT_MS). Installed before start-up: a signal that arrives while the database is
 * prepared or the app is built (a supervisor stopping a slow start) is kept and acted on once the server
 * serves; Node's default would kill the process on the spot (exit by signal, test/reliability/backup-restore
 * saw it at load 8). Returns the call that hands over the started server.
 */
function handleSignals(config: Config): (server: RunningServer) => void {
  let server: RunningServer | undefined;
  let received: string | undefined;
  const stop = (running: RunningServer, signal: string) => {
    running.app.http.log.info(`Received ${signal}, shutting down`);
    drain(running)
      .then(() => running.close())
      .then(
        () => {
          // The line a supervisor's log shows that the stop was clean (pino flushes it on exit).
          running.app.http.log.info(`Shutdown complete after ${signal}`);
          process.exit(0);
        },
        (error: unknown) => {
          running.app.http.log.error({ err: error }, 'Shutdown failed');
          process.exit(1);
        },
      );
  };
  const shutdown = (signal: string) => {
    if (received) return;
    received = signal;
    const timer = setTimeout(() => {
      (server?.app.http.log ?? createLogger(config.LOG_LEVEL)).error('Shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    if (server) stop(server, signal);
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  return (started) => {
    server = started;
    if (received) stop(started, received);
  };
}

export async function serve(env: Record<string, string | undefined> = process.env): Promise<void> {
  let config: Config;
  try {
    config = withDevelopmentSecret(loadConfig(env));
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  if (needsDatabaseSecret(config)) config = await withKeptSecret(config);
  if (config.WORKERS > 1 && cluster.isPrimary) return runCluster(config);
  const started = handleSignals(config);
  started(await startServer(config, { prepare: !cluster.isWorker }));
}

/**
 * WORKERS=N: the primary prepares the database once, then runs N server processes sharing the port.
 * A worker that dies is replaced; SIGTERM is passed on and the primary exits when all have finished.
 */
async function runCluster(config: Config): Promise<void> {
  const log = createLogger(config.LOG_LEVEL);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info(`Received ${signal}, stopping ${config.WORKERS} workers`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
    setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_MS + 1000).unref();
  };
  // Before the database is prepared: a signal during that stops the primary once it is done, not by Node's default.
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const db = createDatabase(config.DATABASE_URL, { poolSize: 1 });
  try {
    await prepareFor(config, db, log);
  } finally {
    await db.destroy();
  }
  if (stopping) process.exit(0);
  // The role as this process read it (a command-line `--role` included), whatever the forks' environment says.
  const fork = () => cluster.fork({ PROCESS_ROLE: config.PROCESS_ROLE });
  for (let i = 0; i < config.WORKERS; i += 1) fork();
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    log.error(`Worker ${worker.process.pid} exited (${signal ?? code}); starting a replacement`);
    fork();
  });
}

if (import.meta.main) {
  await serve();
}
