#!/usr/bin/env node
import { migrateDatabase } from './bootstrap.ts';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from './config/config.ts';
import { withDatabaseSecret, withDevelopmentSecret } from './config/development-secret.ts';
import { EnvSchema } from './config/env-schema.ts';
import { createTokenService } from './core/access/tokens.ts';
import { createDatabase, type Db } from './core/db/database.ts';
import { migrateToLatest } from './core/db/migrate.ts';
import { migrationsOfModules } from './modules/index.ts';
import { findUserById } from './modules/users/users.reads.ts';
import { serve } from './server.ts';

const USAGE = `Usage: content-service <command> [options]

Commands:
  serve [--role R]      start the HTTP server (migrations, admin bootstrap and demo data included) and the
                        background workers; --role api: the API only, no background worker (PROCESS_ROLE)
  worker                run only the background workers (webhooks, NATS, order holds, reports, event purge),
                        with /healthz, /readyz and /metrics on PORT (PROCESS_ROLE=worker)
  migrate               apply pending database migrations and exit
  token --user ID       print an access token for user ID, signed with JWT_SECRET (or the database's development secret)
  set-password --email E
                        set a user's password, read from standard input (--password-stdin)
  seed [options]        generate a large data set (see: seed --help)
  openapi [--version N] print the OpenAPI 3.1 document of REST version N (default 1; 2 is current)
  schema                print the GraphQL schema (SDL)

Configuration comes from environment variables; see docs/CONFIGURATION.md.`;

function configOrExit(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
}

async function withDatabase<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  const db = createDatabase(config.DATABASE_URL);
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { role: { type: 'string' } } });
      if (values.role !== undefined && !ROLES.includes(values.role)) {
        throw new UsageError(`serve --role must be one of ${ROLES.join(', ')}`);
      }
      // The command line wins over the environment's PROCESS_ROLE.
      return serve(values.role === undefined ? process.env : { ...process.env, PROCESS_ROLE: values.role });
    }
    case 'worker':
      parseArgs({ args: rest, options: {} });
      return serve({ ...process.env, PROCESS_ROLE: 'worker' });
    case 'migrate': {
      const config = configOrExit();
      const log = { info: (line: string) => console.error(line), warn: (line: string) => console.error(line) };
      const { applied, backfilled, indexesBuilt } = await withDatabase(config, (db) => migrateDatabase(db, log));
      const done = [
        ...applied,
        ...backfilled.map((name) => `backfill ${name}`),
        ...indexesBuilt.map((name) => `index ${name}`),
      ];
      console.log(done.length > 0 ? `Applied: ${done.join(', ')}` : 'Database is up to date');
      return;
    }
    case 'token': {
      const { values } = parseArgs({ args: rest, options: { user: { type: 'string' } } });
      const id = Number(values.user);
      if (!Number.isSafeInteger(id) || id < 1) throw new UsageError('token needs --user ID (a positive integer)');
      const configured = withDevelopmentSecret(configOrExit());
      // The secret the server uses on the same DATABASE_URL: JWT_SECRET, or the development secret kept
      // beside the SQLite file or in the PostgreSQL database (DECISIONS §1).
      const { config, user } = await withDatabase(configured, async (db) => {
        await migrateToLatest(db, migrationsOfModules);
        return { config: await withDatabaseSecret(configured, db), user: await findUserById(db, id) };
      });
      if (config.jwtSecretGenerated && config.jwtSecretFile === undefined && !config.jwtSecretInDatabase) {
        console.error(
          'JWT_SECRET is not set and this database keeps no development secret: no server would accept a token signed now. Set JWT_SECRET.',
        );
        process.exit(1);
      }
      if (!user) throw new UsageError(`No user with id ${id}`);
      const tokens = createTokenService({
        secret: config.jwtSecret,
        issuer: config.JWT_ISSUER,
        audience: config.JWT_AUDIENCE,
        ttlSeconds: config.JWT_TTL_SECONDS,
      });
      console.log((await tokens.issue({ userId: user.id, role: user.role })).access_token);
      return;
    }
    case 'set-password': {
      const { runSetPasswordCommand } = await import('./modules/users/users.set-password-command.ts');
      const { createServices } = await import('./services.ts');
      const config = configOrExit();
      // The users service as the server builds it: the change and its event in one transaction.
      return runSetPasswordCommand(config, rest, (db) => createServices(config, db).users);
    }
    case 'seed': {
      const { runSeedCommand } = await import('./demo/seed-command.ts');
      return runSeedCommand(configOrExit(), rest);
    }
    case 'openapi': {
      const { values } = parseArgs({ args: rest, options: { version: { type: 'string', default: '1' } } });
      const version = Number(values.version);
      if (version !== 1 && version !== 2) throw new UsageError('openapi --version must be 1 or 2');
      const { generateOpenApiDocuments } = await import('./contract-documents.ts');
      const documents = await generateOpenApiDocuments([version]);
      console.log(JSON.stringify(documents.get(version), null, 2));
      return;
    }
    case 'schema': {
      const { generateSdl } = await import('./contract-documents.ts');
      process.stdout.write(generateSdl());
      return;
    }
    case undefined:
    case 'help':
    case '--help':
      console.log(USAGE);
      return;
    default:
      throw new UsageError(`Unknown command "${command}"`);
  }
}

class UsageError extends Error {}

/** PROCESS_ROLE's values (DECISIONS §16). */
const ROLES: readonly string[] = EnvSchema.properties.PROCESS_ROLE.enum;

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
