import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateDatabase } from '../bootstrap.ts';
import { loadConfig } from '../config/config.ts';
import { createDatabase } from '../core/db/database.ts';
import { migrationNames } from '../core/db/migrate.ts';
import { migrationsOfModules } from '../modules/index.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { runSeedCommand } from './seed-command.ts';

const quiet = { info: () => {}, warn: () => {} };

for (const dialect of DIALECTS) {
  describe(`seed migrations (${dialect.name})`, { skip: dialect.skip }, () => {
    it('applies every migration the server would, so the server then applies none', async () => {
      const database = await dialect.createDatabase();
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
      const print = { log: console.log, error: console.error };
      console.log = console.error = () => {};
      try {
        await runSeedCommand(config, ['--users', '3', '--products', '3', '--orders', '2']);
      } finally {
        Object.assign(console, print);
      }
      const db = createDatabase(database.url);
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
        assert.deepEqual(
          rows.map((row) => row.name),
          migrationNames(migrationsOfModules),
        );
        const outcome = await migrateDatabase(db, quiet);
        assert.deepEqual(outcome, { applied: [], indexesBuilt: [], backfilled: [], freshDatabase: false });
      } finally {
        await db.destroy();
        await database.drop();
      }
    });

    it(
      'leaves every indexed word of the posts it writes in the search vocabulary, and of a post after it',
      {
        // PostgreSQL: the seed writes the vocabulary itself (seed.repository.ts); SQLite's is its FTS5 table's.
        skip: dialect.name !== 'postgres',
      },
      async () => {
        const database = await dialect.createDatabase();
        const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
        const print = { log: console.log, error: console.error };
        console.log = console.error = () => {};
        try {
          await runSeedCommand(config, ['--users', '5', '--products', '0', '--orders', '0']);
        } finally {
          Object.assign(console, print);
        }
        const db = createDatabase(database.url);
        const missing = async () =>
          (
            await sql<{ word: string }>`select distinct u.lexeme as word from posts,
              unnest(to_tsvector('simple', coalesce(title, '') || ' ' || coalesce(content, ''))) as u
            where length(u.lexeme) <= 40 and u.lexeme !~ '[^[:alpha:]]'
              and not exists (select 1 from post_search_words w where w.word = u.lexeme)`.execute(db)
          ).rows.map((row) => row.word);
        try {
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from posts`.execute(db);
          assert.ok(rows[0]!.n > 0);
          assert.deepEqual(await missing(), []);
          // Outside the seed's transactions the trigger tokenises as before.
          await sql`insert into posts (author_id, title, content, created_at, updated_at)
          select id, 'Zyzzyva', 'quokka', now(), now() from users limit 1`.execute(db);
          assert.deepEqual(await missing(), []);
          const words = await sql<{
            word: string;
          }>`select word from post_search_words where word in ('zyzzyva', 'quokka')`.execute(db);
          assert.equal(words.rows.length, 2);
        } finally {
          await db.destroy();
          await database.drop();
        }
      },
    );
  });
}
