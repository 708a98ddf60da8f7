import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { afterOuterCommit, inOuterTransaction } from './outer-transaction.ts';
import { inTransaction } from './transaction.ts';

for (const dialect of DIALECTS) {
  describe(`an outer transaction around services' own transactions (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, {
      poolSize: 3,
      setUp: async (db) => {
        await sql`create table mark (id int primary key)`.execute(db);
      },
    });
    const marks = async () =>
      (await sql<{ id: number }>`select id from mark order by id`.execute(suite.db)).rows.map((r) => Number(r.id));
    const insert = (id: number) => inTransaction(suite.db, (trx) => sql`insert into mark values (${id})`.execute(trx));

    it('rolls back every inner transaction when the work throws after they committed', async () => {
      await sql`delete from mark`.execute(suite.db);
      await assert.rejects(
        inOuterTransaction(suite.db, async () => {
          await insert(1);
          await sql`insert into mark values (2)`.execute(suite.db);
          throw new Error('last one failed');
        }),
        /last one failed/,
      );
      assert.deepEqual(await marks(), []);
    });

    it('undoes only a failed inner transaction, and commits the rest at the end', async () => {
      await sql`delete from mark`.execute(suite.db);
      const seen: string[] = [];
      await inOuterTransaction(suite.db, async () => {
        await insert(1);
        await assert.rejects(
          inTransaction(suite.db, async (trx) => {
            await sql`insert into mark values (2)`.execute(trx);
            await sql`insert into mark values (1)`.execute(trx);
          }),
        );
        await insert(3);
        afterOuterCommit(() => seen.push('committed'));
        assert.deepEqual(seen, []);
      });
      assert.deepEqual(seen, ['committed']);
      assert.deepEqual(await marks(), [1, 3]);
    });
  });
}
