import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import type { Db } from '../../src/core/db/database.ts';
import { migrationsOfModules } from '../../src/modules/index.ts';
import { dialectNamed } from '../support/dialects.ts';
import { BUILT_BEFORE_ONLINE_INDEXES, lintMigrations } from '../support/migration-lint.ts';

const postgres = dialectNamed('postgres');

describe('migration lint (postgres)', { skip: postgres.skip }, () => {
  it('finds no blocking index build on a large table in any migration the service has', async () => {
    assert.deepEqual(await lintMigrations(postgres, migrationsOfModules), []);
  });

  it('refuses a new migration that builds an index on a large table without concurrently, and accepts it declared online', async () => {
    const blocking = {
      '9999-posts-by-title-length': {
        async up(db: Kysely<unknown>) {
          await db.schema.createIndex('posts_title_length_idx').on('posts').column('title').execute();
        },
      },
    };
    const findings = await lintMigrations(postgres, { ...migrationsOfModules, ...blocking });
    assert.deepEqual(
      findings.map((finding) => finding.migration),
      ['9999-posts-by-title-length'],
    );
    const online = {
      '9999-posts-by-title-length': {
        async up() {},
        onlineIndexes: [{ name: 'posts_title_length_idx', table: 'posts', definition: '(title)' }],
      },
    };
    assert.deepEqual(await lintMigrations(postgres, { ...migrationsOfModules, ...online }), []);
  });

  it('refuses a new migration that backfills a large table in its transaction, and accepts the backfill declared online', async () => {
    const inside = {
      '9999-posts-title-lengths': {
        async up(db: Kysely<unknown>) {
          await sql`create table post_title_lengths (id integer primary key, length integer not null)`.execute(db);
          await sql`insert into post_title_lengths (id, length) select id, length(title) from posts`.execute(db);
        },
      },
      '9999-users-names-trimmed': {
        async up(db: Kysely<unknown>) {
          await sql`update users set name = trim(name)`.execute(db);
        },
      },
    };
    const findings = await lintMigrations(postgres, { ...migrationsOfModules, ...inside });
    assert.deepEqual(
      findings.map((finding) => finding.migration),
      ['9999-posts-title-lengths', '9999-users-names-trimmed'],
    );
    const online = {
      '9999-posts-title-lengths': {
        async up(db: Kysely<unknown>) {
          await sql`create table post_title_lengths (id integer primary key, length integer not null)`.execute(db);
        },
        onlineBackfills: [
          {
            name: 'post_title_lengths',
            table: 'posts',
            async fill(db: Db, after: number, upTo: number) {
              await sql`insert into post_title_lengths (id, length) select id, length(title) from posts
                        where id > ${after} and id <= ${upTo} on conflict do nothing`.execute(db);
            },
          },
        ],
      },
    };
    assert.deepEqual(await lintMigrations(postgres, { ...migrationsOfModules, ...online }), []);
  });

  it('grandfathers only migrations that exist (the list can only shrink)', () => {
    const names = new Set(Object.keys(migrationsOfModules));
    for (const name of BUILT_BEFORE_ONLINE_INDEXES) {
      if (name.startsWith('000') && Number(name.slice(0, 4)) <= 5) continue; // core's, in src/core/db/migrate.ts
      assert.ok(names.has(name), `${name} is grandfathered but no module has it`);
    }
  });
});
