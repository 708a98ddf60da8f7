import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.ts';
import { withDatabaseSecret } from './config/development-secret.ts';
import { createDatabase, type Db } from './core/db/database.ts';
import { createLogger } from './core/ops/logging.ts';
import { migrateToLatest, type MigrationOutcome } from './core/db/migrate.ts';
import type { MigrationGate } from './core/ops/migration-gate.ts';
import { migrationsOfModules } from './modules/index.ts';
import { insertDemoData } from './demo/demo-data.ts';
import { ensureAdministrator } from './modules/users/users.admin-account.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * Makes sure an administrator exists. With no ADMIN_PASSWORD a random one is generated and
 * printed once; an existing account with ADMIN_EMAIL is promoted and given that password.
 */
export async function ensureAdmin(db: Db, config: Config, log: Logger): Promise<void> {
  const password = config.ADMIN_PASSWORD ?? randomBytes(12).toString('base64url');
  const email = config.ADMIN_EMAIL.toLowerCase();
  if (!(await ensureAdministrator(db, email, password))) return;
  if (config.ADMIN_PASSWORD) log.info(`Created administrator ${email}`);
  else log.warn(`Created administrator ${email} with the generated password: ${password} (shown once)`);
}

/**
 * The service's migrations, core's and every module's: the one function the server, `content-service
 * migrate` and `npm run seed` all apply, so none leaves another anything to do. The log (and `gate`,
 * which `/readyz` shows) says which migration runs, and a PostgreSQL index build's progress.
 */
export async function migrateDatabase(
  db: Db,
  log: Logger | FastifyBaseLogger,
  gate?: Pick<MigrationGate, 'starting'>,
): Promise<MigrationOutcome> {
  const outcome = await migrateToLatest(db, migrationsOfModules, {
    onMigration(name) {
      gate?.starting(name);
      log.info(`Migrating: ${name}`);
    },
    onProgress({ index, phase, done, total }) {
      const share = total ? ` (${Math.floor((100 * (done ?? 0)) / total)} %)` : '';
      log.info(`Building index ${index}: ${phase}${share}`);
    },
  });
  if (outcome.applied.length > 0) log.info(`Applied migrations: ${outcome.applied.join(', ')}`);
  if (outcome.backfilled.length > 0) log.info(`Filled online: ${outcome.backfilled.join(', ')}`);
  if (outcome.indexesBuilt.length > 0) log.info(`Built indexes online: ${outcome.indexesBuilt.join(', ')}`);
  return outcome;
}

/** Everything the service does before serving: migrations, the admin account, demo data. */
export async function prepareDatabase(
  db: Db,
  config: Config,
  log: Logger | FastifyBaseLogger,
  gate?: Pick<MigrationGate, 'starting'>,
): Promise<void> {
  const { freshDatabase } = await migrateDatabase(db, log, gate);
  await ensureAdmin(db, config, log);
  if (freshDatabase && config.DEMO_DATA) {
    await insertDemoData(db);
    log.info('Loaded the demo data set into the new database');
  }
}

/**
 * What a process does before it serves: every role migrates (a worker reads the tables); the administrator
 * and the demo data are the API's (a worker's log is not where an operator looks for a generated password).
 */
export function prepareFor(config: Config, db: Db, log: Logger, gate?: MigrationGate): Promise<unknown> {
  if (config.PROCESS_ROLE === 'worker') return migrateDatabase(db, log, gate);
  return prepareDatabase(db, config, log, gate);
}

/**
 * PostgreSQL in development without JWT_SECRET: the secret the database keeps (DECISIONS §1), read before
 * the app is built with it. Its table is a migration's, so here the database is prepared (migrations, and the
 * administrator and demo data of a new database) before the port opens; a production start, which has
 * JWT_SECRET, still listens first.
 */
export async function withKeptSecret(config: Config): Promise<Config> {
  const db = createDatabase(config.DATABASE_URL, { poolSize: 1 });
  try {
    await prepareFor(config, db, createLogger(config.LOG_LEVEL));
    return await withDatabaseSecret(config, db);
  } finally {
    await db.destroy();
  }
}
