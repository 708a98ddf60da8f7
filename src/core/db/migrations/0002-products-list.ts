import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.ts';

/**
 * What the products list needs at a million rows (see bench/PRODUCTS.md).
 *
 * `(category, id)`: a category page in the default id order reads 20 index entries instead of
 * sorting the whole category.
 *
 * Exact totals without counting a million rows per request. `product_counts` holds the
 * number of products per (category, in stock), kept exact by triggers in the same transaction as
 * every insert, update and delete, so the list's `total` for the common filters (none, category,
 * in_stock, both) is a sum over at most two rows per category. Filters on price or name still count
 * rows, through indexes where they help. On PostgreSQL, `pg_trgm` (when available) indexes name
 * substrings for `search`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  await db.schema.createIndex('products_category_id_idx').on('products').columns(['category', 'id']).execute();
  await db.schema
    .createTable('product_counts')
    .addColumn('category', 'varchar(100)', (c) => c.notNull())
    .addColumn('in_stock', postgres ? 'boolean' : 'integer', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_counts_pk', ['category', 'in_stock'])
    .execute();
  await sql`insert into product_counts (category, in_stock, n)
    select category, stock > 0, count(*) from products group by category, stock > 0`.execute(db);
  await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = (category: string, stock: string, delta: number) => `
    insert into product_counts (category, in_stock, n) values (${category}, ${stock} > 0, ${delta})
      on conflict (category, in_stock) do update set n = n + ${delta};`;
  await sql
    .raw(
      `create trigger products_count_insert after insert on products begin ${add('new.category', 'new.stock', 1)} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger products_count_delete after delete on products begin ${add('old.category', 'old.stock', -1)} end`,
    )
    .execute(db);
  // Only a change of category or of in-stock status moves a product between counters.
  await sql
    .raw(
      `create trigger products_count_update after update of category, stock on products
       when old.category is not new.category or (old.stock > 0) is not (new.stock > 0)
       begin ${add('old.category', 'old.stock', -1)} ${add('new.category', 'new.stock', 1)} end`,
    )
    .execute(db);
}

/**
 * Statement-level triggers with transition tables: a batch insert updates each counter once. Only
 * net changes are written, so the stock updates of orders that keep a product in stock touch (and
 * lock) no counter row.
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (source: string) => `
    insert into product_counts as c (category, in_stock, n)
      select category, in_stock, sum(delta) from (${source}) as d
      group by category, in_stock having sum(delta) <> 0
      on conflict (category, in_stock) do update set n = c.n + excluded.n;`;
  const added = 'select category, stock > 0 as in_stock, 1 as delta from new_rows';
  const removed = 'select category, stock > 0 as in_stock, -1 as delta from old_rows';
  await sql
    .raw(
      `create function products_count_apply() returns trigger language plpgsql as $$
       begin
         if tg_op = 'INSERT' then ${apply(added)}
         elsif tg_op = 'DELETE' then ${apply(removed)}
         else ${apply(`${added} union all ${removed}`)}
         end if;
         return null;
       end $$`,
    )
    .execute(db);
  const trigger = (op: string, tables: string) =>
    sql
      .raw(
        `create trigger products_count_${op} after ${op} on products referencing ${tables}
            for each statement execute function products_count_apply()`,
      )
      .execute(db);
  await trigger('insert', 'new table as new_rows');
  await trigger('update', 'old table as old_rows new table as new_rows');
  await trigger('delete', 'old table as old_rows');

  const { rows } = await sql<{ ok: boolean }>`
    select exists (select 1 from pg_available_extensions where name = 'pg_trgm')
       and has_database_privilege(current_database(), 'CREATE') as ok`.execute(db);
  if (rows[0]?.ok) {
    await sql`create extension if not exists pg_trgm`.execute(db);
    await sql`create index products_name_trgm_idx on products using gin (name gin_trgm_ops)`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  for (const op of ['insert', 'update', 'delete']) {
    await sql.raw(`drop trigger if exists products_count_${op}${postgres ? ' on products' : ''}`).execute(db);
  }
  if (postgres) {
    await sql`drop function if exists products_count_apply()`.execute(db);
    await sql`drop index if exists products_name_trgm_idx`.execute(db);
  }
  await db.schema.dropTable('product_counts').ifExists().execute();
  await db.schema.dropIndex('products_category_id_idx').ifExists().execute();
}
