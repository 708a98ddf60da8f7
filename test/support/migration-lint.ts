import { createDatabase } from '../../src/core/db/database.ts';
import { migrateToLatest, type SchemaMigration } from '../../src/core/db/migrate.ts';
import type { TestDialect } from './dialects.ts';

/**
 * A migration lint in the manner of squawk and strong_migrations, on the SQL the migrations really run:
 * every migration is applied to a fresh database and each statement is recorded under the migration
 * that ran it. A `create index` without `concurrently` on a table the project calls large is refused
 * (it holds the table's writers for the whole build): declare it as one of the migration's
 * `onlineIndexes` instead (src/core/db/online-indexes.ts), built concurrently after the migrations.
 */

/** Tables that grow with the business: a blocking index build on one is an outage for its writers. */
export const LARGE_TABLES = new Set([
  'users',
  'posts',
  'post_search',
  'comments',
  'comment_likes',
  'products',
  'product_search',
  'orders',
  'order_items',
  'events',
  'webhook_deliveries',
  'idempotency_keys',
]);

/**
 * The migrations written before online index builds existed, applied on every database since: history
 * never changes, so they keep the indexes they built. Nothing may be added to this list.
 */
export const BUILT_BEFORE_ONLINE_INDEXES = new Set([
  '0001-initial-schema',
  '0002-products-list',
  '0003-product-price-counts',
  '0004-counter-storage',
  '0005-order-hold-index',
  '0006-products-descending-sorts',
  '0007-events',
  '0008-event-consumer-leases',
  '0009-webhooks',
  '0010-comments-list-queries',
  '0010-likes-list-queries',
  '0010-orders-list-queries',
  '0010-posts-list-queries',
  '0010-posts-post-counts',
  '0010-products-list-queries',
  '0010-users-list-queries',
  '0010-users-user-counts',
  '0010-webhook-endpoint-history',
  '0011-comments-author-desc',
  '0011-likes-by-user',
  '0011-orders-order-counts',
  '0011-posts-text-statistics',
  '0011-products-text-statistics',
  '0011-users-text-statistics',
  '0012-posts-text-statistics-analyzed',
  '0012-products-text-statistics-analyzed',
  '0012-users-statistics-analyzed',
  '0013-posts-content-statistics',
  '0014-events-fewer-indexes',
]);

export interface LintFinding {
  migration: string;
  statement: string;
}

const BLOCKING_INDEX =
  /^\s*create\s+(?:unique\s+)?index\s+(?!concurrently\b)(?:if\s+not\s+exists\s+)?"?\w+"?\s+on\s+(?:only\s+)?"?(\w+)"?/i;
/**
 * A backfill in the migration's transaction: rows inserted from a large table, or a large table's rows
 * updated. On a table with millions of rows it runs for minutes with the migration's locks held (its
 * triggers' creation holds the table's writers): declare it in `onlineBackfills` (online-backfills.ts).
 */
const BACKFILL_FROM = /^\s*insert\s+into\s+"?\w+"?[\s\S]*?\bfrom\s+"?(\w+)"?/i;
const BACKFILL_UPDATE = /^\s*update\s+"?(\w+)"?\s+set\b/i;
/** A migration's own name (`0016-posts-search`), not an online step run after them (`backfill ...`, `index ...`). */
const MIGRATION_NAME = /^\d{4}-/;

/** The table a statement builds a blocking index on, or backfills in the migration's transaction. */
const blockedTable = (text: string) =>
  BLOCKING_INDEX.exec(text)?.[1] ?? BACKFILL_FROM.exec(text)?.[1] ?? BACKFILL_UPDATE.exec(text)?.[1];

/**
 * The blocking index builds on large tables, and the backfills of large tables in a migration's
 * transaction, of the migrations not grandfathered, run on a fresh database of `dialect`.
 */
export async function lintMigrations(
  dialect: TestDialect,
  migrations: Readonly<Record<string, SchemaMigration>>,
): Promise<LintFinding[]> {
  const database = await dialect.createDatabase();
  let current = '';
  const findings: LintFinding[] = [];
  const db = createDatabase(database.url, {
    onQuery(text) {
      const table = blockedTable(text);
      if (
        table &&
        LARGE_TABLES.has(table) &&
        MIGRATION_NAME.test(current) &&
        !BUILT_BEFORE_ONLINE_INDEXES.has(current)
      ) {
        findings.push({ migration: current, statement: text });
      }
    },
  });
  try {
    await migrateToLatest(db, migrations, { onMigration: (name) => (current = name) });
  } finally {
    await db.destroy();
    await database.drop();
  }
  return findings;
}
