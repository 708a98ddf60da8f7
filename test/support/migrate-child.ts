import { createDatabase } from '../../src/core/db/database.ts';
import { migrateToLatest } from '../../src/core/db/migrate.ts';
import type { OnlineIndex } from '../../src/core/db/online-indexes.ts';
import { migrationsOfModules } from '../../src/modules/index.ts';

/**
 * A migrating process for the reliability suites: the service's migrations plus one more that adds the
 * online indexes given as JSON in TEST_ONLINE_INDEXES, on DATABASE_URL. Prints the outcome as JSON.
 */
const indexes = JSON.parse(process.env.TEST_ONLINE_INDEXES ?? '[]') as OnlineIndex[];
const db = createDatabase(process.env.DATABASE_URL!, { statementTimeoutMs: 15_000 });
try {
  const outcome = await migrateToLatest(
    db,
    { ...migrationsOfModules, '9999-test-online-indexes': { async up() {}, onlineIndexes: indexes } },
    { onMigration: (name) => console.error(`migrating ${name}`) },
  );
  console.log(JSON.stringify(outcome));
} finally {
  await db.destroy();
}
