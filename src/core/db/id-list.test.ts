import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import type { Db } from './database.ts';
import { columnInParam, idListParam } from './id-list.ts';

const columnIn = (db: Db, column: string, ids: number[]) => columnInParam(db, column, idListParam(db, ids));

for (const dialect of DIALECTS) {
  describe(`columnInParam: batch reads by a list of ids (${dialect.name})`, { skip: dialect.skip }, () => {
    // One connection: on PostgreSQL its prepared statements are the ones the reads below left.
    const suite = suiteDatabase(dialect, {
      poolSize: 1,
      setUp: async (db) => {
        await sql`create table item (id int primary key, name text not null)`.execute(db);
        await sql`insert into item values (1, 'one'), (2, 'two'), (3, 'three'), (4, 'four')`.execute(db);
      },
    });

    const read = (ids: number[]) => {
      const query = (suite.db as unknown as Kysely<{ item: { id: number; name: string } }>)
        .selectFrom('item')
        .select(['id', 'name'])
        .where(columnIn(suite.db, 'id', ids))
        .orderBy('id');
      return { sql: query.compile().sql, rows: query.execute() };
    };

    it('reads exactly the rows of the listed ids, whatever their number', async () => {
      assert.deepEqual(await read([3]).rows, [{ id: 3, name: 'three' }]);
      assert.deepEqual(await read([4, 1, 4, 9]).rows, [
        { id: 1, name: 'one' },
        { id: 4, name: 'four' },
      ]);
      assert.deepEqual(await read([]).rows, []);
    });

    if (dialect.name === 'postgres') {
      it('sends one SQL text for every batch size, which PostgreSQL prepares once per connection', async () => {
        const texts = new Set([read([1]).sql, read([1, 2]).sql, read([1, 2, 3, 4]).sql]);
        assert.equal(texts.size, 1, [...texts].join('\n'));
        const [text] = texts;
        assert.match(text!, /= any\(\$1\)/);
        for (const ids of [[1], [1, 2], [2, 3, 4]]) await read(ids).rows;
        const prepared = (
          await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(suite.db)
        ).rows;
        assert.equal(
          prepared.filter((row) => row.statement === text).length,
          1,
          prepared.map((row) => row.statement).join('\n'),
        );
      });

      it('sends the ids as one array text, and refuses anything but integer ids', async () => {
        const query = read([7, 3, 7]).rows;
        const compiled = (suite.db as unknown as Kysely<{ item: { id: number } }>)
          .selectFrom('item')
          .select('id')
          .where(columnIn(suite.db, 'id', [7, 3, 7]))
          .compile();
        assert.deepEqual(compiled.parameters, ['{7,3,7}']);
        for (const bad of [1.5, Number.NaN, 2 ** 53])
          assert.throws(() => columnIn(suite.db, 'id', [1, bad]), TypeError);
        assert.deepEqual(await query, [{ id: 3, name: 'three' }]);
      });
    }
  });
}
