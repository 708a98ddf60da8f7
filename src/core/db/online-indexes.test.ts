import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDatabase } from './database.ts';
import { buildOnlineIndexes } from './online-indexes.ts';

describe('online indexes (sqlite)', () => {
  const db = createDatabase('sqlite::memory:');
  after(() => db.destroy());

  it('builds a missing index plainly once, and finds it built on the next run', async () => {
    await sql`create table things (id integer primary key, name text)`.execute(db);
    const index = { name: 'things_name_idx', table: 'things', definition: '(name, id)' };
    const announced: string[] = [];
    assert.deepEqual(await buildOnlineIndexes(db, [index], { onIndex: (i) => announced.push(i.name) }), [index.name]);
    assert.deepEqual(await buildOnlineIndexes(db, [index]), []);
    assert.deepEqual(announced, [index.name]);
    const { rows } = await sql`select name from sqlite_master where type = 'index' and name = ${index.name}`.execute(
      db,
    );
    assert.equal(rows.length, 1);
  });

  it('refuses a name that is not a plain identifier', async () => {
    await assert.rejects(
      buildOnlineIndexes(db, [{ name: 'x; drop table things', table: 'things', definition: '(id)' }]),
      /plain identifiers/,
    );
  });
});
