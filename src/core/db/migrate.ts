import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import type { Db } from './database.ts';
import * as initialSchema from './migrations/0001-initial-schema.ts';
import * as productsList from './migrations/0002-products-list.ts';
import * as productPriceCounts from './migrations/0003-product-price-counts.ts';
import * as counterStorage from './migrations/0004-counter-storage.ts';
import * as orderHoldIndex from './migrations/0005-order-hold-index.ts';

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
};

/** Core's migrations and the modules' (Kysely runs them in name order); a name given twice is refused. */
function providerOf(extra: Readonly<Record<string, Migration>>): MigrationProvider {
  const taken = Object.keys(extra).filter((name) => name in MIGRATIONS);
  if (taken.length > 0) throw new Error(`Migration names already taken: ${taken.join(', ')}`);
  const all = { ...MIGRATIONS, ...extra };
  return { getMigrations: async () => all };
}

export interface MigrationOutcome {
  applied: string[];
  /** True when this run created the schema from nothing: a brand-new database. */
  freshDatabase: boolean;
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
  moduleMigrations: Readonly<Record<string, Migration>> = {},
): Promise<MigrationOutcome> {
  const provider = providerOf(moduleMigrations);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await migrateOnce(db, provider);
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

async function migrateOnce(db: Db, provider: MigrationProvider): Promise<MigrationOutcome> {
  // Each module brings its own migrations, numbered independently (`0010-users-...`, `0010-webhook-...`):
  // a database that has a later-named one applied still takes an earlier-named one added since.
  const migrator = new Migrator({ db, provider, allowUnorderedMigrations: true });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
  return { applied, freshDatabase: applied.includes('0001-initial-schema') };
}
