import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { keepDevelopmentSecret } from '../core/access/development-secret.repository.ts';
import type { Db } from '../core/db/database.ts';
import { ConfigError, type Config } from './config.ts';

/**
 * The file beside a SQLite database that keeps its development secret (`data/content.db` →
 * `data/content.db.jwt-secret`), or undefined where there is no data directory to keep it in
 * (`sqlite::memory:`) or the database keeps it itself (PostgreSQL: `withDatabaseSecret`).
 */
export function developmentSecretFileOf(databaseUrl: string): string | undefined {
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return undefined;
  const path = databaseUrl.replace(/^sqlite:/, '');
  return path === ':memory:' || path === '' ? undefined : `${path}.jwt-secret`;
}

/**
 * DECISIONS §1: with JWT_SECRET unset outside production, the secret that signs tokens is generated on
 * the first start and kept beside the SQLite database, readable by its owner only, so tokens survive a
 * restart and every process of the same database (a cluster's workers, `cli token`) signs alike. Without a
 * data directory the per-process secret of `loadConfig` stays. Production never gets here with a secret to
 * choose: `loadConfig` refuses it without JWT_SECRET or a JWKS, and an external key's deployment signs no
 * local tokens worth keeping, so its per-process secret stays too.
 */
export function withDevelopmentSecret(config: Config): Config {
  if (!config.jwtSecretGenerated || config.NODE_ENV === 'production') return config;
  const file = developmentSecretFileOf(config.DATABASE_URL);
  if (file === undefined) return config;
  try {
    return { ...config, jwtSecret: readOrCreateSecret(file), jwtSecretFile: file };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Cannot keep the development JWT secret in ${file} (${reason}); set JWT_SECRET`);
  }
}

/** Whether the development secret is the PostgreSQL database's to keep (`withDatabaseSecret`, once it is migrated). */
export function needsDatabaseSecret(config: Config): boolean {
  return (
    config.jwtSecretGenerated &&
    config.NODE_ENV !== 'production' &&
    config.jwtSecretFile === undefined &&
    /^postgres(ql)?:\/\//.test(config.DATABASE_URL)
  );
}

/**
 * DECISIONS §1 on PostgreSQL: the development secret is kept in the database itself (table
 * `development_secret`, migration 0006, readable by the owner and the service's role only), so the server,
 * its cluster workers and `cli token` on the same DATABASE_URL sign alike, and tokens survive a restart.
 * `db` must be migrated. Any other configuration is returned as it is.
 */
export async function withDatabaseSecret(config: Config, db: Db): Promise<Config> {
  if (!needsDatabaseSecret(config)) return config;
  return { ...config, jwtSecret: await keepDevelopmentSecret(db, config.jwtSecret), jwtSecretInDatabase: true };
}

/** The start-up warning of a secret the service chose itself, saying how long its tokens live; undefined for JWT_SECRET. */
export function developmentSecretWarning(config: Config): string | undefined {
  if (!config.jwtSecretGenerated) return undefined;
  if (config.jwtSecretInDatabase) {
    return 'JWT_SECRET is not set: tokens are signed with the development secret kept in the database (table development_secret; tokens survive a restart); set JWT_SECRET in production';
  }
  if (config.jwtSecretFile !== undefined) {
    return `JWT_SECRET is not set: tokens are signed with the development secret kept in ${config.jwtSecretFile} (owner-only file; tokens survive a restart); set JWT_SECRET in production`;
  }
  return 'JWT_SECRET is not set: tokens are signed with a random per-process secret and stop working when this process ends (no data directory to keep one in); set JWT_SECRET to keep them';
}

/** Owner read and write only: the file holds what forges any account's token. */
const OWNER_ONLY = 0o600;
const MIN_LENGTH = 32;

/**
 * Reads the kept secret, or writes a new one. The new file appears whole or not at all (written under a
 * temporary name, then linked in place; the link fails if another process was first, and its secret wins),
 * so processes starting together on one database agree on it.
 */
function readOrCreateSecret(file: string): string {
  const existing = readSecret(file);
  if (existing !== undefined) return existing;
  mkdirSync(dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${secret}\n`, { mode: OWNER_ONLY, flag: 'wx' });
  try {
    linkSync(temporary, file);
    return secret;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readSecret(file) ?? secret;
  } finally {
    unlinkSync(temporary);
  }
}

function readSecret(file: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = text.trim();
  if (secret.length < MIN_LENGTH) {
    throw new ConfigError(
      `The development JWT secret in ${file} is shorter than ${MIN_LENGTH} characters: delete the file (tokens signed with it stop working) or set JWT_SECRET`,
    );
  }
  // A copy or an archive may have widened it: the secret is the owner's alone again.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, OWNER_ONLY);
  return secret;
}
