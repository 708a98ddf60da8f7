import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.ts';
import type { Db } from './core/db/database.ts';
import { migrateToLatest } from './core/db/migrate.ts';
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

/** Everything the service does before serving: migrations, the admin account, demo data. */
export async function prepareDatabase(db: Db, config: Config, log: Logger | FastifyBaseLogger): Promise<void> {
  const { applied, freshDatabase } = await migrateToLatest(db, migrationsOfModules);
  if (applied.length > 0) log.info(`Applied migrations: ${applied.join(', ')}`);
  await ensureAdmin(db, config, log);
  if (freshDatabase && config.DEMO_DATA) {
    await insertDemoData(db);
    log.info('Loaded the demo data set into the new database');
  }
}
