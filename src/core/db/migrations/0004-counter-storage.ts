import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.ts';

/**
 * The counter tables of 0002 and 0003, each with its primary key. A copy of the products module's
 * list (PRODUCT_COUNTER_TABLES): an applied migration never changes with the code around it.
 */
const COUNTER_TABLES = [
  { table: 'product_counts', key: 'product_counts_pk' },
  { table: 'product_price_counts', key: 'product_price_counts_pk' },
] as const;

/**
 * PostgreSQL storage of the counter tables, whose few rows triggers rewrite on every product write.
 *
 * - `fillfactor = 50`: an update of a counter (its `n` is in no index) can stay in the row's own page
 *   (a heap-only tuple), where later reads prune the dead versions: the tables grow less and keep
 *   their key order between vacuums. Without room the new version goes to another page: after a
 *   million seeded products the 100 rows of `product_counts` spanned 454 pages, and the 160 price
 *   counters of one category 90 pages (bench/PRODUCTS.md).
 * - `cluster ... using` the primary key rewrites each table now, compactly and in key order (a
 *   category's counters in a few pages), leaving the free half of each page. The tables are small:
 *   the exclusive lock lasts milliseconds. The seed command clusters again after a bulk load.
 *
 * SQLite keeps no old row versions in its tables and stores the price counters in their primary
 * key's b-tree already (0003): nothing to do there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  for (const { table, key } of COUNTER_TABLES) {
    await sql`alter table ${sql.table(table)} set (fillfactor = 50)`.execute(db);
    await sql`cluster ${sql.table(table)} using ${sql.ref(key)}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  for (const { table } of COUNTER_TABLES) {
    await sql`alter table ${sql.table(table)} reset (fillfactor)`.execute(db);
    await sql`alter table ${sql.table(table)} set without cluster`.execute(db);
  }
}
