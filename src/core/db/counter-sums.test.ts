import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import type { TableName } from './by-id-statements.ts';
import { counterSum } from './counter-sums.ts';

for (const dialect of DIALECTS) {
  describe(`counterSum: a list's total from its counters (${dialect.name})`, { skip: dialect.skip }, () => {
    // Counters of things by owner and colour, as a module's triggers would keep them.
    const suite = suiteDatabase(dialect, {
      poolSize: 2,
      setUp: async (db) => {
        await sql`create table thing_counts (owner int not null, colour text not null, n int not null, primary key (owner, colour))`.execute(
          db,
        );
        await sql`insert into thing_counts values (1, 'red', 3), (1, 'blue', 5), (2, 'red', 7), (3, 'green', 11)`.execute(
          db,
        );
      },
    });
    const sumThings = counterSum('thing_counts' as TableName, ['owner', 'colour']);

    it('sums the rows whose keys hold the values asked: one value an equality, several a list, none the whole column', async () => {
      assert.equal(await sumThings(suite.db, {}), 26);
      assert.equal(await sumThings(suite.db, { owner: [1] }), 8);
      assert.equal(await sumThings(suite.db, { owner: [1, 3] }), 19);
      assert.equal(await sumThings(suite.db, { colour: ['red'] }), 10);
      assert.equal(await sumThings(suite.db, { owner: [1, 2], colour: ['red', 'green'] }), 10);
      assert.equal(await sumThings(suite.db, { owner: [2], colour: ['blue'] }), 0);
    });

    it('binds each value anew on every call of a statement it compiled once', async () => {
      const answers = [];
      for (const owner of [3, 2, 1, 9])
        answers.push(await sumThings(suite.db, { owner: [owner], colour: ['red', 'green'] }));
      assert.deepEqual(answers, [11, 7, 3, 0]);
      assert.equal(await sumThings(suite.db, { colour: ["red' or 1=1 --"] }), 0);
    });
  });
}
