import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * Exact totals of the orders list without counting orders (DECISIONS §12, as `post_counts` and
 * `user_counts`): `order_counts` holds the number of orders per (customer, status), and beside them
 * the sums the list asks for most: customer 0 (no user has id 0) for all customers, status `''` (no
 * order has it) for all statuses. So every order is counted in four rows: (customer, status),
 * (customer, ''), (0, status) and (0, ''). Kept by triggers in the same transaction as every insert,
 * delete and change of customer or status (placing, `pay`, `cancel`, `refund`, the hold sweep).
 *
 * The whole list's total is one row, a status filter or a customer's own list one row each, an `in`
 * list a sum over as many rows as values (orders.repository.ts, `countedOrders`).
 *
 * No foreign key to users, as `post_counts`: a customer's rows need no lock on the user's row (and
 * a user who has orders cannot be deleted). PostgreSQL: `fillfactor = 50`, as the product counters
 * (migration 0004): every transition rewrites four rows, which then stay in their page.
 */
export const orderCountsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    await db.schema
      .createTable('order_counts')
      .addColumn('customer_id', 'integer', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('order_counts_pk', ['customer_id', 'status'])
      .execute();
    if (postgres) await sql`alter table order_counts set (fillfactor = 50)`.execute(db);
    await sql`insert into order_counts (customer_id, status, n)
      select customer_id, status, count(*) from orders group by customer_id, status
      union all select customer_id, '', count(*) from orders group by customer_id
      union all select 0, status, count(*) from orders group by status
      union all select 0, '', count(*) from orders
      order by customer_id, status`.execute(db);
    await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    for (const op of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger if exists order_counts_${op}${postgres ? ' on orders' : ''}`).execute(db);
    }
    if (postgres) await sql`drop function if exists order_counts_apply()`.execute(db);
    await db.schema.dropTable('order_counts').ifExists().execute();
  },
};

/** The four rows an order of `customer` in `status` is counted in, each moved by `delta`. */
function sqliteCounts(customer: string, status: string, delta: number): string {
  const add = (c: string, s: string) => `
    insert into order_counts (customer_id, status, n) values (${c}, ${s}, ${delta})
      on conflict (customer_id, status) do update set n = n + ${delta};`;
  return [add('0', "''"), add('0', status), add(customer, "''"), add(customer, status)].join(' ');
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `create trigger order_counts_insert after insert on orders
       begin ${sqliteCounts('new.customer_id', 'new.status', 1)} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger order_counts_delete after delete on orders
       begin ${sqliteCounts('old.customer_id', 'old.status', -1)} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger order_counts_update after update of customer_id, status on orders
       when old.customer_id is not new.customer_id or old.status is not new.status
       begin ${sqliteCounts('old.customer_id', 'old.status', -1)} ${sqliteCounts('new.customer_id', 'new.status', 1)} end`,
    )
    .execute(db);
}

/**
 * Statement-level triggers with transition tables: a bulk insert (the seed) updates each counter once,
 * and only net changes are written (a transition leaves the all-statuses rows alone). Rows are written
 * in key order (all customers first), so concurrent statements lock them in one order and never
 * deadlock with each other.
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (source: string) => `
    insert into order_counts as c (customer_id, status, n)
      select k.customer_id, k.status, sum(d.delta) from (${source}) as d
        cross join lateral (values (d.customer_id, d.status::text), (d.customer_id, ''), (0, d.status), (0, ''))
          as k (customer_id, status)
      group by k.customer_id, k.status having sum(d.delta) <> 0
      order by k.customer_id, k.status
      on conflict (customer_id, status) do update set n = c.n + excluded.n;`;
  const added = 'select customer_id, status, 1 as delta from new_rows';
  const removed = 'select customer_id, status, -1 as delta from old_rows';
  await sql
    .raw(
      `create function order_counts_apply() returns trigger language plpgsql as $$
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
        `create trigger order_counts_${op} after ${op} on orders referencing ${tables}
            for each statement execute function order_counts_apply()`,
      )
      .execute(db);
  await trigger('insert', 'new table as new_rows');
  await trigger('update', 'old table as old_rows new table as new_rows');
  await trigger('delete', 'old table as old_rows');
}
