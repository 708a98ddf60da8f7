import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import pg from 'pg';
import { PgDriver } from './pg-driver.ts';
import { createNamedStatements, PLANNED_PER_VALUES } from './pg-named-statements.ts';

const postgres = dialectNamed('postgres');

describe('named statements on PostgreSQL', { skip: postgres.skip }, () => {
  // One connection: every statement below runs on it, so its prepared statements are visible.
  const suite = suiteDatabase(postgres, {
    poolSize: 1,
    setUp: async (db) => {
      await sql`create table item (id int primary key, name text not null)`.execute(db);
      await sql`insert into item values (1, 'one'), (2, 'two')`.execute(db);
    },
  });

  const prepared = async () =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(suite.db)).rows.map(
      (row) => row.statement,
    );
  const byId = (id: number) => sql<{ id: number; name: string }>`select * from item where id = ${id}`.execute(suite.db);

  it('parses a repeated statement once per connection and reuses it', async () => {
    assert.deepEqual((await byId(1)).rows, [{ id: 1, name: 'one' }]);
    assert.deepEqual((await byId(2)).rows, [{ id: 2, name: 'two' }]);
    const statements = await prepared();
    assert.equal(
      statements.filter((text) => text === 'select * from item where id = $1').length,
      1,
      statements.join('\n'),
    );
  });

  it('leaves statements with an in-list or a like pattern unnamed', async () => {
    await sql`select id from item where id in (${1}, ${2})`.execute(suite.db);
    await sql`select id from item where name like ${'o%'}`.execute(suite.db);
    const statements = await prepared();
    assert.ok(!statements.some((text) => / in \(| like /.test(text)), statements.join('\n'));
  });

  it('leaves a statement marked to be planned per values unnamed', async () => {
    await sql`select id from item where id >= ${1} ${sql.raw(PLANNED_PER_VALUES)}`.execute(suite.db);
    const statements = await prepared();
    assert.ok(!statements.some((text) => text.includes(PLANNED_PER_VALUES)), statements.join('\n'));
  });

  it('hands out one connection object per pg client, the same on every checkout', async () => {
    // Kysely keys its per-connection state by this object: a new one per checkout made it build a new
    // connection and two weak-table entries for every statement (garbage promoted under load).
    const driver = new PgDriver(new pg.Pool({ connectionString: suite.url, max: 1 }));
    try {
      const first = await driver.acquireConnection();
      await driver.releaseConnection(first);
      const second = await driver.acquireConnection();
      await driver.releaseConnection(second);
      assert.equal(second, first);
    } finally {
      await driver.destroy();
    }
  });

  it('has closed every connection of its pool when destroy resolves (nothing left for a dropped database to terminate)', async () => {
    const name = `destroy-${process.pid}`;
    const backends = async () =>
      Number(
        (
          await sql<{ n: string }>`select count(*) as n from pg_stat_activity where application_name = ${name}`.execute(
            suite.db,
          )
        ).rows[0]!.n,
      );
    for (let round = 0; round < 10; round += 1) {
      const driver = new PgDriver(new pg.Pool({ connectionString: suite.url, max: 3, application_name: name }));
      const connections = await Promise.all([0, 1, 2].map(() => driver.acquireConnection()));
      await Promise.all(connections.map((connection) => connection.execute(CompiledQuery.raw('select 1'))));
      for (const connection of connections) await driver.releaseConnection(connection);
      await driver.destroy();
      assert.equal(await backends(), 0, `round ${round}: a backend of the destroyed pool is still there`);
    }
  });

  it('names only the first texts it sees, up to its bound', () => {
    const statements = createNamedStatements(2);
    const first = statements.nameOf('select 1');
    assert.ok(first);
    assert.ok(statements.nameOf('select 2'));
    assert.equal(statements.nameOf('select 3'), undefined);
    assert.equal(statements.nameOf('select 1'), first);
  });

  it('answers with the new columns when a migration changes a table under a named select *', async () => {
    await byId(1);
    await sql`alter table item add column colour text`.execute(suite.db);
    assert.deepEqual((await byId(1)).rows, [{ id: 1, name: 'one', colour: null }]);
    assert.deepEqual((await byId(2)).rows, [{ id: 2, name: 'two', colour: null }]);
  });

  it('after a committed transaction, retries a changed named statement again on the same connection', async () => {
    await suite.db.transaction().execute((trx) => sql`select * from item where id = ${1}`.execute(trx));
    await byId(2);
    await sql`alter table item add column weight int`.execute(suite.db);
    assert.deepEqual((await byId(2)).rows, [{ id: 2, name: 'two', colour: null, weight: null }]);
  });

  it('inside a transaction fails only that transaction, then serves the statement again', async () => {
    await byId(1);
    await sql`alter table item add column size int`.execute(suite.db);
    await assert.rejects(
      suite.db.transaction().execute((trx) => sql`select * from item where id = ${1}`.execute(trx)),
      (error: { code?: string }) => error.code === '0A000',
    );
    assert.deepEqual((await byId(1)).rows, [{ id: 1, name: 'one', colour: null, weight: null, size: null }]);
  });
});
