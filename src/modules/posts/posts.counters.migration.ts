import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * Exact totals of the posts lists without counting posts (DECISIONS §12, as `user_counts` for users):
 * `post_counts` holds the number of posts of each author, and under author 0 (no user has id 0) the
 * number of all posts, kept by triggers in the same transaction as every insert, delete (a user's
 * deletion cascades to their posts) and change of author. A user's posts total is one row; all posts,
 * one row; `authorId[in]` a sum over as many rows as ids.
 *
 * No foreign key to users: a deleted user's row stays at 0 (their posts' deletion brings it there),
 * which is their exact count, and inserts need no lock on the user's row.
 */
export const postCountsMigration = {
  async up(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    await db.schema
      .createTable('post_counts')
      .addColumn('author_id', 'integer', (c) => c.notNull().primaryKey())
      .addColumn('n', postgres ? 'bigint' : 'integer', (c) => c.notNull())
      .execute();
    await sql`insert into post_counts (author_id, n)
      select author_id, count(*) from posts group by author_id
      union all select 0, count(*) from posts`.execute(db);
    await (postgres ? postgresTriggers(db) : sqliteTriggers(db));
  },
  async down(db: Kysely<unknown>): Promise<void> {
    const postgres = dialectOf(db) === 'postgres';
    for (const op of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger if exists post_counts_${op}${postgres ? ' on posts' : ''}`).execute(db);
    }
    if (postgres) await sql`drop function if exists post_counts_apply()`.execute(db);
    await db.schema.dropTable('post_counts').ifExists().execute();
  },
};

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  const add = (author: string, delta: number) => `
    insert into post_counts (author_id, n) values (${author}, ${delta})
      on conflict (author_id) do update set n = n + ${delta};`;
  await sql
    .raw(`create trigger post_counts_insert after insert on posts begin ${add('0', 1)} ${add('new.author_id', 1)} end`)
    .execute(db);
  await sql
    .raw(
      `create trigger post_counts_delete after delete on posts begin ${add('0', -1)} ${add('old.author_id', -1)} end`,
    )
    .execute(db);
  await sql
    .raw(
      `create trigger post_counts_update after update of author_id on posts
       when old.author_id is not new.author_id
       begin ${add('old.author_id', -1)} ${add('new.author_id', 1)} end`,
    )
    .execute(db);
}

/**
 * Statement-level triggers with transition tables: a bulk insert (the seed) or a user's deletion
 * updates each counter once. Rows are written in key order (all posts first), so concurrent
 * statements lock them in one order and never deadlock.
 */
async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  const apply = (source: string) => `
    insert into post_counts as c (author_id, n)
      select author_id, sum(delta) from (
        select author_id, delta from (${source}) as d
        union all select 0, delta from (${source}) as a
      ) as changes
      group by author_id having sum(delta) <> 0
      order by author_id
      on conflict (author_id) do update set n = c.n + excluded.n;`;
  const added = 'select author_id, 1 as delta from new_rows';
  const removed = 'select author_id, -1 as delta from old_rows';
  await sql
    .raw(
      `create function post_counts_apply() returns trigger language plpgsql as $$
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
        `create trigger post_counts_${op} after ${op} on posts referencing ${tables}
            for each statement execute function post_counts_apply()`,
      )
      .execute(db);
  await trigger('insert', 'new table as new_rows');
  await trigger('update', 'old table as old_rows new table as new_rows');
  await trigger('delete', 'old table as old_rows');
}
