import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS, dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { inTransaction } from './transaction.ts';

const postgres = dialectNamed('postgres');

describe('transactions that PostgreSQL aborts for a deadlock', { skip: postgres.skip }, () => {
  const suite = suiteDatabase(postgres, {
    poolSize: 4,
    setUp: async (db) => {
      await sql`create table pair (id int primary key, n int not null)`.execute(db);
      await sql`insert into pair values (1, 0), (2, 0)`.execute(db);
    },
  });

  it('are retried, so two crossing transactions both complete', async () => {
    const bump = (first: number, second: number) =>
      inTransaction(suite.db, async (trx) => {
        await sql`update pair set n = n + 1 where id = ${first}`.execute(trx);
        await sql`select pg_sleep(0.2)`.execute(trx);
        await sql`update pair set n = n + 1 where id = ${second}`.execute(trx);
      });
    await Promise.all([bump(1, 2), bump(2, 1)]);
    const { rows } = await sql<{ n: number }>`select n from pair order by id`.execute(suite.db);
    assert.deepEqual(
      rows.map((row) => row.n),
      [2, 2],
    );
  });

  it('does not retry other errors', async () => {
    let runs = 0;
    await assert.rejects(
      inTransaction(suite.db, async (trx) => {
        runs += 1;
        await sql`insert into pair values (1, 0)`.execute(trx);
      }),
      /duplicate key/,
    );
    assert.equal(runs, 1);
  });
});

for (const dialect of DIALECTS) {
  describe(`savepoints in a transaction (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, {
      poolSize: 2,
      setUp: async (db) => {
        await sql`create table mark (id int primary key)`.execute(db);
      },
    });

    it('roll back to a savepoint and keep what came before it', async () => {
      const trx = await suite.db.startTransaction().execute();
      await sql`insert into mark values (1)`.execute(trx);
      const saved = await trx.savepoint('before two').execute();
      await sql`insert into mark values (2)`.execute(saved);
      const back = await saved.rollbackToSavepoint('before two').execute();
      await back.releaseSavepoint('before two').execute();
      await trx.commit().execute();
      const { rows } = await sql<{ id: number }>`select id from mark order by id`.execute(suite.db);
      assert.deepEqual(
        rows.map((row) => row.id),
        [1],
      );
    });
  });
}
