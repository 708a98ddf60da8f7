import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { createDatabase, type Db } from './database.ts';
import { BACKFILL_RANGE, runOnlineBackfills, type OnlineBackfill } from './online-backfills.ts';

/**
 * A range whose source row is deleted between the range's read and its insert fails its foreign key and is
 * run again (PostgreSQL). The delete is made to land exactly there by a trigger on the filled table that
 * deletes the parent of the row being inserted, so the insert's foreign-key check fails as after a
 * concurrent delete. The failed statement takes the trigger's delete back with it; a sequence (which no
 * rollback resets) counts the trigger's deletes, so only the first `limit` attempts meet one.
 */
const postgres = dialectNamed('postgres');

describe('online backfills: a range that meets a concurrent delete (postgres)', { skip: postgres.skip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Db;
  before(async () => {
    database = await postgres.createDatabase();
    db = createDatabase(database.url);
    await sql`create table parents (id integer primary key)`.execute(db);
    await sql`create table children (parent_id integer primary key references parents (id))`.execute(db);
    // The deletes made so far (`deletes`) and how many may be (`delete_limit`, one row).
    await sql`create sequence deletes`.execute(db);
    await sql`create table delete_limit (n integer not null)`.execute(db);
    await sql`
      create function delete_parent_first() returns trigger language plpgsql as $$
      begin
        if nextval('deletes') <= (select n from delete_limit) then
          delete from parents where id = new.parent_id;
        end if;
        return new;
      end $$`.execute(db);
    await sql`create trigger delete_parent_first before insert on children
      for each row execute function delete_parent_first()`.execute(db);
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const backfill = (name: string): OnlineBackfill => ({
    name,
    table: 'parents',
    fill: async (trx, afterId, upTo) => {
      await sql`insert into children (parent_id) select id from parents where id > ${afterId} and id <= ${upTo}
        on conflict do nothing`.execute(trx);
    },
  });

  /** `parents` rows to fill from; the first `limit` rows the trigger sees have their parent deleted. */
  const reset = async (parents: number, limit: number) => {
    await sql`delete from children`.execute(db);
    await sql`delete from parents`.execute(db);
    await sql`insert into parents (id) select g from generate_series(1, ${parents}) g`.execute(db);
    await sql`delete from delete_limit`.execute(db);
    await sql`insert into delete_limit (n) values (${limit})`.execute(db);
    await sql`alter sequence deletes restart`.execute(db);
  };
  const deletesMade = async () =>
    Number((await sql<{ n: string }>`select last_value as n from deletes`.execute(db)).rows[0]!.n);

  it('runs the range again, and every row gets its derived row once; the backfill is recorded', async () => {
    const parents = BACKFILL_RANGE + 10;
    await reset(parents, 1);
    assert.deepEqual(await runOnlineBackfills(db, [backfill('children_once')]), ['children_once']);
    const { rows } = await sql<{ children: number }>`select count(*)::int as children from children`.execute(db);
    assert.equal(rows[0]!.children, parents);
    assert.ok((await deletesMade()) > 1, 'the first attempt met the delete, the next one went through');
    const recorded = await sql<{ name: string }>`select name from online_backfills`.execute(db);
    assert.ok(recorded.rows.some((row) => row.name === 'children_once'));
  });

  it('gives up after three attempts of one range, and records nothing', async () => {
    await reset(10, 1_000);
    await assert.rejects(runOnlineBackfills(db, [backfill('children_never')]), { code: '23503' });
    const { rows } = await sql<{ name: string }>`select name from online_backfills`.execute(db);
    assert.ok(!rows.some((row) => row.name === 'children_never'), 'not recorded as done');
    assert.equal(
      await deletesMade(),
      3 * 10,
      'three attempts of the range, each deleting the parent of each of its 10 rows',
    );
  });
});
