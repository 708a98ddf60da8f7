import { sql } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { dialectOf, type Db } from './database.ts';
import { runOnlineBackfills, type OnlineBackfill } from './online-backfills.ts';
import { buildOnlineIndexes, type IndexProgress, type OnlineIndex } from './online-indexes.ts';
import * as initialSchema from './migrations/0001-initial-schema.ts';
import * as productsList from './migrations/0002-products-list.ts';
import * as productPriceCounts from './migrations/0003-product-price-counts.ts';
import * as counterStorage from './migrations/0004-counter-storage.ts';
import * as orderHoldIndex from './migrations/0005-order-hold-index.ts';
import * as developmentSecret from './migrations/0006-development-secret.ts';

/**
 * The schema's history up to the module descriptors: versioned migrations, in order. Applied ones
 * never change. A new resource brings its own migrations in its module's descriptor (`migrations`),
 * named to sort after these (`0006-widgets`); they are passed in by the caller.
 */
const MIGRATIONS: Record<string, Migration> = {
  '0001-initial-schema': initialSchema,
  '0002-products-list': productsList,
  '0003-product-price-counts': productPriceCounts,
  '0004-counter-storage': counterStorage,
  '0005-order-hold-index': orderHoldIndex,
  '0006-development-secret': developmentSecret,
};

/**
 * A migration, with the indexes it adds to tables that may be large and the rows it derives from them:
 * those are built and filled online after the transactional migrations (online-indexes.ts,
 * online-backfills.ts), never by `up`.
 */
export type SchemaMigration = Migration & {
  onlineIndexes?: readonly OnlineIndex[];
  onlineBackfills?: readonly OnlineBackfill[];
};

/** What a run reports as it goes: the migration it starts, the online index it builds and its progress. */
export interface MigrationHooks {
  onMigration?: (name: string) => void;
  onProgress?: (progress: IndexProgress) => void;
}

/** Core's migrations and the modules' (Kysely runs them in name order); a name given twice is refused. */
function allMigrations(extra: Readonly<Record<string, SchemaMigration>>): Record<string, SchemaMigration> {
  const taken = Object.keys(extra).filter((name) => name in MIGRATIONS);
  if (taken.length > 0) throw new Error(`Migration names already taken: ${taken.join(', ')}`);
  return { ...MIGRATIONS, ...extra };
}

/** The migrations as Kysely runs them, each announcing itself to `onMigration` as it starts. */
function providerOf(all: Record<string, SchemaMigration>, hooks: MigrationHooks): MigrationProvider {
  const announced = Object.fromEntries(
    Object.entries(all).map(([name, migration]): [string, Migration] => [
      name,
      {
        ...migration,
        async up(db) {
          hooks.onMigration?.(name);
          await migration.up(db);
        },
      },
    ]),
  );
  return { getMigrations: async () => announced };
}

export interface MigrationOutcome {
  applied: string[];
  /** The online indexes this run built (missing, or left invalid by an interrupted build). */
  indexesBuilt: string[];
  /** The online backfills this run ran (not recorded as done before it). */
  backfilled: string[];
  /** True when this run created the schema from nothing: a brand-new database. */
  freshDatabase: boolean;
}

/** The names of every migration the service has (core's and the modules'), for checks. */
export function migrationNames(moduleMigrations: Readonly<Record<string, SchemaMigration>>): string[] {
  return Object.keys(allMigrations(moduleMigrations)).sort();
}

/** Enough for the winner's transaction to commit on a crowded machine (about 9 s in all). */
const ATTEMPTS = 10;

/**
 * Applies pending migrations. Safe to run from several instances at once: on PostgreSQL Kysely takes
 * a lock; on SQLite its lock holds within one process only, so a process starting beside another on
 * a new file could fail with "table ... already exists" (test/reliability). Each attempt is one
 * transaction that rolls back whole, so the loser tries again and finds the work done.
 */
export async function migrateToLatest(
  db: Db,
  moduleMigrations: Readonly<Record<string, SchemaMigration>> = {},
  hooks: MigrationHooks = {},
): Promise<MigrationOutcome> {
  const all = allMigrations(moduleMigrations);
  const provider = providerOf(all, hooks);
  let outcome: Omit<MigrationOutcome, 'indexesBuilt' | 'backfilled'>;
  for (let attempt = 1; ; attempt += 1) {
    try {
      outcome = await withoutStatementTimeout(db, (session) => migrateOnce(session, provider));
      break;
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
  const indexes = Object.values(all).flatMap((migration) => migration.onlineIndexes ?? []);
  const backfills = Object.values(all).flatMap((migration) => migration.onlineBackfills ?? []);
  const online =
    indexes.length === 0 && backfills.length === 0
      ? { indexesBuilt: [], backfilled: [] }
      : await runOnline(db, backfills, indexes, hooks);
  return { ...outcome, ...online };
}

/** Key of the advisory lock that lets one instance at a time build the online indexes (PostgreSQL). */
const ONLINE_INDEX_LOCK = 4_242_051;

/** How often an instance asks for the online-index lock while another holds it. */
const ONLINE_INDEX_LOCK_RETRY_MS = 100;

/**
 * The online indexes, built by one instance at a time: another waits for the lock, then finds them
 * built. A killed process's build that PostgreSQL finishes anyway holds the lock until it ends. The
 * lock is asked for with `pg_try_advisory_lock` again and again, not waited for in one statement: a
 * statement waiting for it keeps its snapshot, `create index concurrently` waits for every snapshot
 * older than its own, and the holder's build and the waiter then waited for each other ("deadlock
 * detected" killed one of three instances starting at once on a new database).
 */
async function takeOnlineIndexLock(session: Db): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ taken: boolean }>`select pg_try_advisory_lock(${ONLINE_INDEX_LOCK}) as taken`.execute(
      session,
    );
    if (rows[0]?.taken) return;
    await new Promise((resolve) => setTimeout(resolve, ONLINE_INDEX_LOCK_RETRY_MS));
  }
}

/** The backfills, then the indexes (built over filled tables): one instance at a time. */
function runOnline(
  db: Db,
  backfills: readonly OnlineBackfill[],
  indexes: readonly OnlineIndex[],
  hooks: MigrationHooks,
): Promise<Pick<MigrationOutcome, 'indexesBuilt' | 'backfilled'>> {
  return withoutStatementTimeout(db, async (session) => {
    const postgres = dialectOf(db) === 'postgres';
    if (postgres) await takeOnlineIndexLock(session);
    try {
      const backfilled = await runOnlineBackfills(session, backfills, {
        onBackfill: (backfill) => hooks.onMigration?.(`backfill ${backfill.name} of ${backfill.table}`),
      });
      const indexesBuilt = await buildOnlineIndexes(session, indexes, {
        onIndex: (index) => hooks.onMigration?.(`index ${index.name} on ${index.table}`),
        ...(hooks.onProgress ? { onProgress: hooks.onProgress, progressDb: db } : {}),
      });
      return { indexesBuilt, backfilled };
    } finally {
      if (postgres) await sql`select pg_advisory_unlock(${ONLINE_INDEX_LOCK})`.execute(session);
    }
  });
}

/**
 * The pool's statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) bounds requests, not migrations: building
 * an index on a large table, or waiting for Kysely's migration lock while another instance migrates, may
 * take far longer. So on PostgreSQL the migrations run on one connection of the pool whose session has
 * no timeout, and `RESET` gives the connection back with its default (the startup parameter) before it
 * returns to the pool. Kysely's migrator runs all its statements on the one connection it is given.
 */
async function withoutStatementTimeout<T>(db: Db, work: (session: Db) => Promise<T>): Promise<T> {
  if (dialectOf(db) !== 'postgres') return work(db);
  return db.connection().execute(async (session) => {
    await sql`set statement_timeout = 0`.execute(session);
    let outcome: T;
    try {
      outcome = await work(session);
    } catch (error) {
      // The migration's own error is the one to report; a connection too broken to reset is not
      // returned to the pool (pg-pool drops a client that is no longer queryable).
      await sql`reset statement_timeout`.execute(session).catch(() => {});
      throw error;
    }
    await sql`reset statement_timeout`.execute(session);
    return outcome;
  });
}

async function migrateOnce(
  db: Db,
  provider: MigrationProvider,
): Promise<Omit<MigrationOutcome, 'indexesBuilt' | 'backfilled'>> {
  // Each module brings its own migrations, numbered independently (`0010-users-...`, `0010-webhook-...`):
  // a database that has a later-named one applied still takes an earlier-named one added since.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  return { applied, freshDatabase: applied.includes('0001-initial-schema') };
}
