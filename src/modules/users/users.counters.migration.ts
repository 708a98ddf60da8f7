import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * Exact totals of the users list without counting users (DECISIONS §12, as products keep theirs in
 * migration 0002): `user_counts` holds the number of users per (role, status), kept by triggers in the
 * same transaction as every insert, delete and change of role or status. The list's total with no
 * filter, or with equalities on role and status only, is a sum over at most six rows.
 */
export const userCountsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    await db.schema
      .createTable('user_counts')
      .addColumn('role', 'varchar(16)', (c) => c.notNull())
      .addColumn('status', 'varchar(16)', (c) => c.notNull())
      .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_counts_pk', ['role', 'status'])
      .execute();
    await sql`insert into user_counts (role, status, n) select role, status, count(*) from users group by role, status`.execute(
      db,
    );
    await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    for (const op of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger if exists user_counts_${op}${postgres ? ' on users' : ''}`).execute(db);
    }
    if (postgres) await sql`drop function if exists user_counts_apply()`.execute(db);
    await db.schema.dropTable('user_counts').ifExists().execute();
  },
};

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = (role: string, status: string, delta: number) => `
    insert into user_counts (role, status, n) values (${role}, ${status}, ${delta})
      on conflict (role, status) do update set n = n + ${delta};`;
  await sql
    .raw(`create trigger user_counts_insert after insert on users begin ${add('new.role', 'new.status', 1)} end`)
    .execute(db);
  await sql
    .raw(`create trigger user_counts_delete after delete on users begin ${add('old.role', 'old.status', -1)} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger user_counts_update after update of role, status on users
       when old.role is not new.role or old.status is not new.status
       begin ${add('old.role', 'old.status', -1)} ${add('new.role', 'new.status', 1)} end`,
    )
    .execute(db);
}

/**
 * Statement-level triggers with transition tables: a bulk insert (the seed) updates each counter once.
 * Rows are written in key order, so two statements that move users between the same counters (a role
 * change each way) lock them in one order and never deadlock (as 0003-product-price-counts).
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (source: string) => `
    insert into user_counts as c (role, status, n)
      select role, status, sum(delta) from (${source}) as d
      group by role, status having sum(delta) <> 0
      order by role, status
      on conflict (role, status) do update set n = c.n + excluded.n;`;
  const added = 'select role, status, 1 as delta from new_rows';
  const removed = 'select role, status, -1 as delta from old_rows';
  await sql
    .raw(
      `create function user_counts_apply() returns trigger language plpgsql as $$
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
        `create trigger user_counts_${op} after ${op} on users referencing ${tables}
            for each statement execute function user_counts_apply()`,
      )
      .execute(db);
  await trigger('insert', 'new table as new_rows');
  await trigger('update', 'old table as old_rows new table as new_rows');
  await trigger('delete', 'old table as old_rows');
}
