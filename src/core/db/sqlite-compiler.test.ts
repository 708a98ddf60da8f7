import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, it } from 'node:test';
import { sql, type CompiledQuery } from 'kysely';
import { createDatabase, type Db } from './database.ts';

/**
 * The SQL the service's SQLite dialect writes, run on a raw node:sqlite connection whose authorizer
 * counts every compilation of a statement (SQLite asks the authorizer while it compiles, and again
 * each time it compiles a prepared statement anew).
 */
describe('SQLite statements with a LIMIT', () => {
  let db: Db;
  let raw: DatabaseSync;
  let compilations = 0;

  before(() => {
    db = createDatabase('sqlite::memory:');
    raw = new DatabaseSync(':memory:');
    raw.exec('create table users (id integer primary key, name text)');
    const insert = raw.prepare('insert into users (name) values (?)');
    for (let i = 1; i <= 30; i++) insert.run(`user ${i}`);
    raw.setAuthorizer(() => {
      compilations += 1;
      return 0; // SQLITE_OK
    });
  });
  after(async () => {
    raw.close();
    await db.destroy();
  });

  /** Runs `query` `times` times after a first run; returns the ids of the last run and the compilations after the first. */
  function runAgain(query: CompiledQuery, times = 20) {
    const statement = raw.prepare(query.sql);
    const params = query.parameters as number[];
    let rows = statement.all(...params);
    compilations = 0;
    for (let i = 0; i < times; i++) rows = statement.all(...params);
    return { ids: rows.map((row) => row.id), compilations };
  }

  const page = () => db.selectFrom('users').select('id').orderBy('id');

  it('are compiled once and run many times when the limit is bound', () => {
    const { ids, compilations } = runAgain(page().limit(5).compile());
    assert.deepEqual(ids, [1, 2, 3, 4, 5]);
    assert.equal(compilations, 0);
  });

  it('keep their limit and offset, bound or literal', () => {
    assert.deepEqual(runAgain(page().limit(3).offset(10).compile()), { ids: [11, 12, 13], compilations: 0 });
    assert.deepEqual(runAgain(page().limit(sql.lit(2)).compile()), { ids: [1, 2], compilations: 0 });
    assert.deepEqual(runAgain(page().limit(0).compile()), { ids: [], compilations: 0 });
    const subquery = db
      .selectFrom(page().limit(4).offset(28).as('tail'))
      .select((eb) => eb.fn.countAll<number>().as('id'))
      .compile();
    assert.deepEqual(runAgain(subquery), { ids: [2], compilations: 0 });
  });

  it('(why) are compiled again on every run when SQLite sees the bound limit itself', () => {
    // Kysely's own SQLite compiler writes `limit ?`: SQLite plans with the bound value and compiles
    // the statement again after every bind. If this stops holding, sqlite-compiler.ts can go.
    const query = page().limit(5).compile();
    const { compilations } = runAgain({ ...query, sql: query.sql.replace('limit ? + 0', 'limit ?') });
    assert.ok(compilations >= 20, `${compilations} compilations in 20 runs`);
  });
});
