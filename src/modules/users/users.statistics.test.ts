import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';

/**
 * The 1,000-bucket histograms the list estimates rely on (users', posts' and products' migrations 0011
 * and 0012) are in effect on a database seeded before the modules migrated: the seed's `vacuum analyze`
 * ran with 100 buckets, and autovacuum would analyze again only once a tenth of a table changed.
 */
const postgres = dialectNamed('postgres');
const sqlite = dialectNamed('sqlite');
const ROWS = 3_000;

/** The modules' migrations but those named by `pattern`: the database of a seed made before they existed. */
const migrationsBut = (pattern: RegExp) =>
  Object.fromEntries(Object.entries(migrationsOfModules).filter(([name]) => !pattern.test(name)));

describe('list statistics after a seed (postgres)', { skip: postgres.skip }, () => {
  const suite = suiteDatabase(postgres, { poolSize: 1 });

  it('gives the text and creation-time columns 1,000 buckets once the modules migrate', async () => {
    const db = suite.db;
    await migrateToLatest(db, migrationsBut(/^001[12]-(users|posts|products)-/));
    await sql`
      insert into users (name, email, age, role, status, email_verified, created_at, updated_at)
      select 'Person ' || md5(i::text), 'person' || i || '@example.com', 30, 'user', 'active', true,
             now() - make_interval(mins => i), now()
      from generate_series(1, ${ROWS}::int) as i`.execute(db);
    await sql`
      insert into posts (author_id, title, content, created_at, updated_at)
      select (select min(id) from users), 'Title ' || md5(i::text), 'Text ' || md5((i * 7)::text), now(), now()
      from generate_series(1, ${ROWS}::int) as i`.execute(db);
    await sql`
      insert into products (name, category, price_cents, stock, created_at, updated_at)
      select 'Product ' || md5(i::text), 'category-1', 100 + i, 1, now(), now()
      from generate_series(1, ${ROWS}::int) as i`.execute(db);
    await sql`analyze`.execute(db); // the seed's, before the modules' migrations
    await migrateToLatest(db, migrationsOfModules);
    const { rows } = await sql<{ column: string; buckets: number }>`
      select tablename || '.' || attname as column, array_length(histogram_bounds::text::text[], 1) - 1 as buckets
      from pg_stats
      where (tablename, attname) in (('users', 'name'), ('users', 'email'), ('users', 'created_at'),
                                     ('posts', 'title'), ('posts', 'content'), ('products', 'name'))
      order by 1`.execute(db);
    assert.deepEqual(
      rows.map((row) => `${row.column} ${row.buckets}`),
      [
        'posts.content 1000',
        'posts.title 1000',
        'products.name 1000',
        'users.created_at 1000',
        'users.email 1000',
        'users.name 1000',
      ],
    );
  });
});

describe('list statistics after a seed (sqlite)', { skip: sqlite.skip }, () => {
  const suite = suiteDatabase(sqlite, { poolSize: 1 });

  it('plans a role list sorted by age along the age index once the users migration analyzed them', async () => {
    const db = suite.db;
    await migrateToLatest(db, migrationsBut(/^0012-users-/));
    await sql`
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
      insert into users (name, email, age, role, status, email_verified, created_at, updated_at)
      select 'Person ' || i, 'person' || i || '@example.com', 18 + i % 60, 'user', 'active', 1,
             '2025-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'
      from n`.execute(db);
    await migrateToLatest(db, migrationsOfModules);
    // Without statistics SQLite read every user of the roles through the role index and sorted them.
    const { rows } = await sql<{ detail: string }>`
      explain query plan select * from users where role in ('admin', 'user')
      order by age desc nulls last, id desc limit 11`.execute(db);
    const plan = rows.map((row) => row.detail).join('\n');
    assert.ok(!/TEMP B-TREE/.test(plan), plan);
  });
});
