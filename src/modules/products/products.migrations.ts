import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';
import { bucketStatisticsMigration } from '../../core/querying/aggregate-statistics.migration.ts';
import { fullTextMigration, wordsInKeyOrderMigration } from '../../core/search/full-text.migration.ts';
import { PRODUCT_SEARCH } from './products.table.ts';

/**
 * PostgreSQL: `products_count_apply` (0002) with its counter rows upserted in key order (`order by`), as
 * 0003's price counters already are: two transactions inserting products of the same categories at once
 * (an import's lanes) lock the counter rows they share in the same order, instead of deadlocking.
 */
function countApply(ordered: boolean): string {
  const apply = (source: string) => `
    insert into product_counts as c (category, in_stock, n)
      select category, in_stock, sum(delta) from (${source}) as d
      group by category, in_stock having sum(delta) <> 0
      ${ordered ? 'order by category, in_stock' : ''}
      on conflict (category, in_stock) do update set n = c.n + excluded.n;`;
  const added = 'select category, stock > 0 as in_stock, 1 as delta from new_rows';
  const removed = 'select category, stock > 0 as in_stock, -1 as delta from old_rows';
  return `create or replace function products_count_apply() returns trigger language plpgsql as $$
     begin
       if tg_op = 'INSERT' then ${apply(added)}
       elsif tg_op = 'DELETE' then ${apply(removed)}
       else ${apply(`${added} union all ${removed}`)}
       end if;
       return null;
     end $$`;
}

/**
 * Indexes in the exact order of each descending list sort. Ties break by ascending id (product.ts),
 * so `sort=-price` orders by `price_cents desc, id asc`, which the ascending indexes of migration 0001
 * give only read backwards and re-sorted within each price. PostgreSQL runs the list as a named
 * statement on a generic plan, which cannot see that a page needs few rows: without an index in the
 * page's order it read every key of the filter's range and sorted them. With one, it stops after
 * the page (offset + limit keys): less PostgreSQL CPU per list. Each mirrors an ascending index of 0001.
 */
const INDEXES = [
  { name: 'products_category_price_desc_idx', columns: ['category', 'price_cents desc', 'id'] },
  { name: 'products_price_desc_idx', columns: ['price_cents desc', 'id'] },
  { name: 'products_name_desc_idx', columns: ['name desc', 'id'] },
  { name: 'products_created_at_desc_idx', columns: ['created_at desc', 'id'] },
] as const;

const wordsInKeyOrder = wordsInKeyOrderMigration(PRODUCT_SEARCH);

export const productsMigrations = {
  '0006-products-descending-sorts': {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const { name, columns } of INDEXES)
        await db.schema
          .createIndex(name)
          .on('products')
          .columns([...columns])
          .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const { name } of INDEXES) await db.schema.dropIndex(name).execute();
    },
  },
  /**
   * The one filter of the list's grammar (products.list.ts) that no index served: `stock` (`stock=0`,
   * `stock[lte]=5`; `in_stock=true` is stock > 0). Price, name, category and creation time have theirs
   * (0001, 0002, 0006 above); `name[contains]` and `search` the trigram index of 0002 on PostgreSQL.
   */
  '0010-products-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('products_stock_idx').on('products').columns(['stock', 'id']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('products_stock_idx').ifExists().execute();
    },
  },
  /** 1,000 histogram buckets for the names `name[contains]` and `search` match (see users' migration 0011). */
  '0011-products-text-statistics': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table products alter column name set statistics 1000`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table products alter column name set statistics -1`.execute(db);
    },
  },
  /** PostgreSQL: ANALYZE of the name 0011 gave 1,000 buckets (see posts' migration 0012). */
  '0012-products-text-statistics-analyzed': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`analyze products (name)`.execute(db);
    },
    async down(): Promise<void> {},
  },
  /** Full-text search of name, category and description (products.table.ts, core/search). */
  '0016-products-search': fullTextMigration(PRODUCT_SEARCH),
  /** PostgreSQL: the group counts of `/products/aggregate`'s time buckets, for its plans (core/querying). */
  '0017-products-bucket-statistics': bucketStatisticsMigration('products', ['created_at']),
  /** DECISIONS §18: the optional `sku`, unique when present (several products may have none). */
  // The column is added without a rewrite; its unique index is built online (core/db/online-indexes.ts).
  '0021-products-sku': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('products').addColumn('sku', 'varchar(64)').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('products_sku_key').ifExists().execute();
      await db.schema.alterTable('products').dropColumn('sku').execute();
    },
    onlineIndexes: [{ name: 'products_sku_key', table: 'products', definition: '(sku)', unique: true }],
  },
  /** PostgreSQL: the category counters and the search words written in key order (countApply, full-text.migration.ts). */
  '0029-products-writes-in-key-order': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql.raw(countApply(true)).execute(db);
      await wordsInKeyOrder.up(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql.raw(countApply(false)).execute(db);
      await wordsInKeyOrder.down!(db);
    },
  },
};
