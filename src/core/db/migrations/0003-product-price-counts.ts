import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.ts';

/**
 * The width of a price bucket, in cents ($5): a copy of PRICE_BUCKET_CENTS of the products module
 * (src/modules/products/product.ts, which explains the choice), kept here as a literal so this
 * migration never changes once applied, whatever becomes of the module.
 */
const PRICE_BUCKET_CENTS = 500;

/**
 * `product_price_counts`: products per (category, in stock, price bucket), kept exact by triggers like
 * `product_counts` (0002), so a category + price range `total` no longer counts thousands of rows.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (dialectOf(db) === 'postgres') {
    // Kysely runs this in a transaction; holding product writes off until it commits means none can
    // land between the backfill's snapshot and the triggers, and be missed by both.
    await sql`lock table products in share row exclusive mode`.execute(db);
    await createCounters(db, true);
  } else {
    // Kysely runs SQLite migrations outside a transaction: one here keeps other processes on the same
    // file from writing between the backfill and the triggers, and a failure leaves nothing behind.
    await db.transaction().execute((trx) => createCounters(trx, false));
  }
}

async function createCounters(db: Kysely<unknown>, postgres: boolean): Promise<void> {
  await db.schema
    .createTable('product_price_counts')
    .addColumn('category', 'varchar(100)', (c) => c.notNull())
    .addColumn('in_stock', postgres ? 'boolean' : 'integer', (c) => c.notNull())
    .addColumn('bucket', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('product_price_counts_pk', ['category', 'in_stock', 'bucket'])
    // SQLite: the counters live in the primary key's b-tree, so a range sum reads no second table.
    .$call((table) => (postgres ? table : table.modifyEnd(sql`without rowid`)))
    .execute();
  // Prices are never negative (a check constraint), so integer division is the floor.
  await sql`insert into product_price_counts (category, in_stock, bucket, n)
    select category, stock > 0, price_cents / ${sql.lit(PRICE_BUCKET_CENTS)}, count(*) from products
    group by category, stock > 0, price_cents / ${sql.lit(PRICE_BUCKET_CENTS)}`.execute(db);
  await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
}

const bucketOf = (row: string) => `${row}.price_cents / ${PRICE_BUCKET_CENTS}`;

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = (row: 'new' | 'old', delta: number) => `
    insert into product_price_counts (category, in_stock, bucket, n)
      values (${row}.category, ${row}.stock > 0, ${bucketOf(row)}, ${delta})
      on conflict (category, in_stock, bucket) do update set n = n + ${delta};`;
  await sql
    .raw(`create trigger products_price_count_insert after insert on products begin ${add('new', 1)} end`)
    .execute(db);
  await sql
    .raw(`create trigger products_price_count_delete after delete on products begin ${add('old', -1)} end`)
    .execute(db);
  // Only a change of category, in-stock status or bucket moves a product between counters.
  await sql
    .raw(
      `create trigger products_price_count_update after update of category, stock, price_cents on products
       when old.category is not new.category or (old.stock > 0) is not (new.stock > 0)
         or ${bucketOf('old')} is not ${bucketOf('new')}
       begin ${add('old', -1)} ${add('new', 1)} end`,
    )
    .execute(db);
}

/**
 * As in 0002: statement-level triggers with transition tables, writing only net changes, so an
 * order's stock update that keeps a product in stock touches (and locks) no counter row. Rows are
 * written in key order so that concurrent statements lock the counters they share in the same order.
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (source: string) => `
    insert into product_price_counts as c (category, in_stock, bucket, n)
      select category, in_stock, bucket, sum(delta) from (${source}) as d
      group by category, in_stock, bucket having sum(delta) <> 0
      order by category, in_stock, bucket
      on conflict (category, in_stock, bucket) do update set n = c.n + excluded.n;`;
  const rows = (table: string, delta: number) =>
    `select category, stock > 0 as in_stock, price_cents / ${PRICE_BUCKET_CENTS} as bucket, ${delta} as delta from ${table}`;
  await sql
    .raw(
      `create function products_price_count_apply() returns trigger language plpgsql as $$
       begin
         if tg_op = 'INSERT' then ${apply(rows('new_rows', 1))}
         elsif tg_op = 'DELETE' then ${apply(rows('old_rows', -1))}
         else ${apply(`${rows('new_rows', 1)} union all ${rows('old_rows', -1)}`)}
         end if;
         return null;
       end $$`,
    )
    .execute(db);
  const trigger = (op: string, tables: string) =>
    sql
      .raw(
        `create trigger products_price_count_${op} after ${op} on products referencing ${tables}
            for each statement execute function products_price_count_apply()`,
      )
      .execute(db);
  await trigger('insert', 'new table as new_rows');
  await trigger('update', 'old table as old_rows new table as new_rows');
  await trigger('delete', 'old table as old_rows');
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = dialectOf(db) === 'postgres';
  for (const op of ['insert', 'update', 'delete']) {
    await sql.raw(`drop trigger if exists products_price_count_${op}${postgres ? ' on products' : ''}`).execute(db);
  }
  if (postgres) await sql`drop function if exists products_price_count_apply()`.execute(db);
  await db.schema.dropTable('product_price_counts').ifExists().execute();
}
