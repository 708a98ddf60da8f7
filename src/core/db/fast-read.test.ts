import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { rowByIdStatement, type TableName } from './by-id-statements.ts';
import { createDatabase, observeQueries, poolStatsOf, type Db } from './database.ts';
import { readRows } from './fast-read.ts';

const thingById = rowByIdStatement<{ id: number; name: string }>('things' as TableName);
const findThing = async (db: Db, id: number) => (await readRows(db, thingById(db, id)))[0];

const byId = (id: number) =>
  CompiledQuery.raw('select id, name from things where id = ?', [id]) as CompiledQuery<{ id: number; name: string }>;

describe('reads on SQLite while its one connection is free', () => {
  const db = createDatabase('sqlite::memory:');
  before(async () => {
    await sql`create table things (id integer primary key, name text not null)`.execute(db);
    await sql`insert into things values (1, 'one')`.execute(db);
  });
  after(() => db.destroy());

  it('answer, and the statement listeners see them as any other statement', async () => {
    const seen: [string, readonly unknown[], boolean][] = [];
    const stop = observeQueries(db, (text, durationMs, failed, parameters) => {
      assert.ok(durationMs >= 0);
      seen.push([text, parameters, failed]);
    });
    const rows = await readRows(db, byId(1));
    stop();
    assert.deepEqual(rows, [{ id: 1, name: 'one' }]);
    assert.deepEqual(seen, [['select id, name from things where id = ?', [1], false]]);
  });

  it('report a failing statement to the listeners as failed, and reject with its error', async () => {
    const seen: boolean[] = [];
    const stop = observeQueries(db, (_text, _ms, failed) => seen.push(failed));
    await assert.rejects(readRows(db, CompiledQuery.raw('select no_such_column from things', [])), /no such column/);
    stop();
    assert.deepEqual(seen, [true]);
  });

  it('wait for a transaction holding the connection, and never see what it has not committed', async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let inserted!: () => void;
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into things values (2, 'uncommitted')`.execute(trx);
        inserted();
        await held;
        throw new Error('roll back');
      })
      .catch(() => 'rolled back');
    await insertedRow;
    let read, viaById;
    try {
      read = readRows(db, byId(2));
      viaById = findThing(db, 2);
      // Both wait for the connection (the one connection's waiters are counted for metrics).
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(poolStatsOf(db), { total: 1, idle: 0, waiting: 2, max: 1 });
    } finally {
      finish();
    }
    assert.equal(await transaction, 'rolled back');
    assert.deepEqual(await read, []);
    assert.equal(await viaById, undefined);
    assert.deepEqual(poolStatsOf(db), { total: 1, idle: 1, waiting: 0, max: 1 });
  });

  it('read through a transaction itself on the transaction’s own connection', async () => {
    const name = await db.transaction().execute(async (trx) => {
      await sql`insert into things values (3, 'three')`.execute(trx);
      return (await findThing(trx, 3))?.name;
    });
    assert.equal(name, 'three');
  });
});

const postgres = dialectNamed('postgres');

describe('compiled reads on PostgreSQL', { skip: postgres.skip }, () => {
  // One connection: a read beside Kysely must wait for a transaction holding it, and use its statements.
  const suite = suiteDatabase(postgres, {
    poolSize: 1,
    setUp: async (db) => {
      await sql`create table things (id int primary key, name text not null)`.execute(db);
      await sql`insert into things values (1, 'one')`.execute(db);
    },
  });
  const pgById = (id: number) =>
    CompiledQuery.raw('select id, name from things where id = $1', [id]) as CompiledQuery<{ id: number; name: string }>;

  it('run on the pool as a named statement, and the statement listeners see them', async () => {
    const seen: [string, readonly unknown[], boolean][] = [];
    const stop = observeQueries(suite.db, (text, _ms, failed, parameters) => seen.push([text, parameters, failed]));
    assert.deepEqual(await readRows(suite.db, pgById(1)), [{ id: 1, name: 'one' }]);
    await assert.rejects(
      readRows(suite.db, CompiledQuery.raw('select no_such_column from things', [])),
      /no_such_column/,
    );
    stop();
    assert.deepEqual(seen, [
      ['select id, name from things where id = $1', [1], false],
      ['select no_such_column from things', [], true],
    ]);
    const prepared = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(suite.db);
    assert.ok(prepared.rows.some((row) => row.statement === 'select id, name from things where id = $1'));
  });

  it('wait for the connection a transaction holds, and read inside a transaction on its connection', async () => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let inserted!: () => void;
    const insertedRow = new Promise<void>((resolve) => (inserted = resolve));
    const transaction = suite.db.transaction().execute(async (trx) => {
      await sql`insert into things values (2, 'two')`.execute(trx);
      assert.deepEqual(await findThing(trx, 2), { id: 2, name: 'two' });
      inserted();
      await held;
    });
    await insertedRow;
    const outside = findThing(suite.db, 2);
    finish();
    await transaction;
    assert.deepEqual(await outside, { id: 2, name: 'two' });
  });
});
