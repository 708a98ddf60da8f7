import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Kysely } from 'kysely';
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

  it('grandfathers only migrations that exist (the list can only shrink)', () => {
    const names = new Set(Object.keys(migrationsOfModules));
    for (const name of BUILT_BEFORE_ONLINE_INDEXES) {
      if (name.startsWith('000') && Number(name.slice(0, 4)) <= 5) continue; // core's, in src/core/db/migrate.ts
      assert.ok(names.has(name), `${name} is grandfathered but no module has it`);
    }
  });
});
