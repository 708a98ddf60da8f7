import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config/config.ts';
import { hashPassword } from './core/auth/passwords.ts';
import { now } from './core/clock.ts';
import type { Db } from './core/db/database.ts';
import { isUniqueViolation } from './core/db/db-errors.ts';
import { migrateToLatest } from './core/db/migrate.ts';
import { insertDemoData } from './demo/demo-data.ts';
import { adminExists, findUserByEmail, insertUser, updateUserById } from './modules/users/users.repository.ts';

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
}

/**
 * Makes sure an administrator exists. With no ADMIN_PASSWORD a random one is generated and
 * printed once; an existing account with ADMIN_EMAIL is promoted and given that password.
 */
export async function ensureAdmin(db: Db, config: Config, log: Logger): Promise<void> {
  if (await adminExists(db)) return;
  const password = config.ADMIN_PASSWORD ?? randomBytes(12).toString('base64url');
  const email = config.ADMIN_EMAIL.toLowerCase();
  const passwordHash = await hashPassword(password);
  const existing = await findUserByEmail(db, email);
  const timestamp = now();
  if (existing) {
    await updateUserById(db, existing.id, { role: 'admin', password_hash: passwordHash, updated_at: timestamp });
  } else {
    try {
      await insertUser(db, {
        name: 'Administrator',
        email,
        age: null,
        role: 'admin',
        status: 'active',
        email_verified: true,
        password_hash: passwordHash,
        created_at: timestamp,
        updated_at: timestamp,
      });
    } catch (error) {
      // Instances starting together on a new database race to create it; one wins and that is enough.
      if (isUniqueViolation(error) && (await adminExists(db))) return;
      throw error;
    }
  }
  if (config.ADMIN_PASSWORD) log.info(`Created administrator ${email}`);
  else log.warn(`Created administrator ${email} with the generated password: ${password} (shown once)`);
}

/** Everything the service does before serving: migrations, the admin account, demo data. */
export async function prepareDatabase(db: Db, config: Config, log: Logger | FastifyBaseLogger): Promise<void> {
  const { applied, freshDatabase } = await migrateToLatest(db);
  if (applied.length > 0) log.info(`Applied migrations: ${applied.join(', ')}`);
  await ensureAdmin(db, config, log);
  if (freshDatabase && config.DEMO_DATA) {
    await insertDemoData(db);
    log.info('Loaded the demo data set into the new database');
  }
}
