import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { buildApp, type App } from './app.ts';
import { prepareDatabase } from './bootstrap.ts';
import { createDatabase, type Db } from './core/db/database.ts';

export interface RunningServer {
  app: App;
  db: Db;
  url: string;
  close(): Promise<void>;
}

/** Opens the database, migrates, bootstraps and listens: the whole start-up, shared with tests. */
export async function startServer(config: Config): Promise<RunningServer> {
  const db = createDatabase(config.DATABASE_URL, { poolSize: config.DATABASE_POOL_SIZE });
  try {
    const app = await buildApp(config, db);
    await prepareDatabase(db, config, app.http.log);
    if (config.jwtSecretGenerated) {
      app.http.log.warn('JWT_SECRET is not set: tokens are signed with a random per-process secret');
    }
    const url = await app.http.listen({ host: config.HOST, port: config.PORT });
    return {
      app,
      db,
      url,
      async close() {
        await app.http.close();
        await db.destroy();
      },
    };
  } catch (error) {
    await db.destroy();
    throw error;
  }
}

/** Stops accepting connections, lets in-flight requests finish, then exits (forced after the timeout). */
function handleSignals(server: RunningServer, config: Config): void {
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    server.app.http.log.info(`Received ${signal}, shutting down`);
    const timer = setTimeout(() => {
      server.app.http.log.error('Shutdown timed out; exiting');
      process.exit(1);
    }, config.SHUTDOWN_TIMEOUT_MS);
    timer.unref();
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

export async function serve(env: Record<string, string | undefined> = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const server = await startServer(config);
  handleSignals(server, config);
}

if (import.meta.main) {
  await serve();
}
