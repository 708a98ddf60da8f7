import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';
import { createRowIdReserve } from './row-ids.ts';

/** PostgreSQL: new rows' ids, reserved a block at a time (what `recordInsert` writes a row with). */
const postgres = dialectNamed('postgres');

describe('events: ids of new rows reserved in blocks (postgres)', { skip: postgres.skip }, () => {
  const suite = suiteDatabase(postgres, { poolSize: 4, setUp: (db) => migrateToLatest(db, migrationsOfModules) });

  it('takes one statement per block, even for concurrent callers, and never gives an id twice', async () => {
    const db = suite.db;
    let reservations = 0;
    const stop = observeQueries(db, (text) => {
      if (text.includes('nextval')) reservations += 1;
    });
    const first = createRowIdReserve(16);
    const second = createRowIdReserve(16); // another process on the same database
    let ids: number[];
    try {
      ids = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 4 === 3 ? second : first)(db, 'posts')));
    } finally {
      stop();
    }
    assert.equal(new Set(ids).size, 40, 'every id is new');
    assert.equal(reservations, 3, 'first: 30 ids in two blocks; second: 10 in one');
    const firstIds = ids.filter((_, i) => i % 4 !== 3);
    assert.deepEqual(
      firstIds,
      [...firstIds].sort((a, b) => a - b),
      'one process hands its ids out in order',
    );
    // A row written with the column's default takes its id from the same sequence: none of the reserved.
    const { rows } = await sql<{ id: number }>`
      with author as (
        insert into users (name, email, role, status, email_verified, created_at, updated_at)
        values ('Row ids', 'row-ids@example.com', 'user', 'active', true, now(), now()) returning id)
      insert into posts (author_id, title, content, created_at, updated_at)
      select id, 'default id', '', now(), now() from author returning id`.execute(db);
    assert.ok(!ids.includes(rows[0]!.id), `the default's id ${rows[0]!.id} was not reserved`);
  });
});
