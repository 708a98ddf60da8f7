import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createDatabase, type Db } from '../../src/core/db/database.ts';
import { migrateToLatest } from '../../src/core/db/migrate.ts';
import { migrationsOfModules } from '../../src/modules/index.ts';
import { dialectNamed } from '../support/dialects.ts';
import { withPgDatabase } from '../support/pg-session.ts';
import { writesDuring } from '../support/writes-during.ts';

/**
 * Adding the posts' search to a database that already has posts (PostgreSQL): the migration's transaction
 * only creates the side tables and their triggers; the documents and words of the posts already there
 * are filled after it, a range of ids per statement (core/db/online-backfills.ts). Writers of the table
 * go on meanwhile, and every post ends with the document of its current text, those written during the
 * fill too.
 */
const postgres = dialectNamed('postgres');
const POSTS = 150_000;
const SEARCH = '0016-posts-search';

describe('full-text search added to a table with rows (postgres)', { skip: postgres.skip }, () => {
  const database = withPgDatabase(postgres);

  it('fills the documents and words of the rows there before online: writes go on, each document ends current', async () => {
    const { [SEARCH]: search, ...before } = migrationsOfModules;
    assert.ok(search, `${SEARCH} is a migration of the posts`);
    const db: Db = createDatabase(database.url);
    try {
      await migrateToLatest(db, before);
      await database.client.query(
        `insert into users (name, email, created_at, updated_at) values ('a', 'a@x.test', now(), now())`,
      );
      await database.client.query(
        `insert into posts (author_id, title, content, created_at, updated_at)
         select 1, 'post ' || g, 'lantern harbour ' || md5(g::text) || ' quietly', now(), now()
         from generate_series(1, ${POSTS}) g`,
      );
      // A new post, and an old one's text changed: the second races the fill of its range.
      const writer = writesDuring(database.url, async (session, i) => {
        await session.query(
          `insert into posts (author_id, title, content, created_at, updated_at) values (1, 'new', 'written meanwhile', now(), now())`,
        );
        await session.query(`update posts set content = 'rewritten meanwhile' where id = $1`, [(i * 7919) % POSTS]);
      });
      const started = performance.now();
      let outcome;
      let written;
      try {
        outcome = await migrateToLatest(db, migrationsOfModules);
      } finally {
        written = await writer.stop();
      }
      const took = performance.now() - started;
      const { writes, slowestMs: slowest } = written;
      assert.deepEqual(outcome.applied, [SEARCH]);
      assert.deepEqual(outcome.backfilled, ['post_search', 'post_search_words']);
      assert.ok(writes >= 10, `${writes} writes during a ${Math.round(took)} ms migration`);
      assert.ok(slowest < took / 2, `a write waited ${Math.round(slowest)} ms of a ${Math.round(took)} ms migration`);

      const [counts] = await database.client.query<{ posts: string; documents: string; stale: string }>(
        `select (select count(*) from posts) as posts, (select count(*) from post_search) as documents,
                (select count(*) from posts p join post_search d using (id)
                 where d.document <> setweight(to_tsvector('english', p.title), 'A')
                                   || setweight(to_tsvector('english', p.content), 'B')) as stale`,
      );
      assert.equal(counts!.documents, counts!.posts, 'a document for every post');
      assert.equal(counts!.stale, '0', 'every document is of its post’s current text');
      const words = await database.client.query<{ word: string }>(
        `select word from post_search_words where word in ('lantern', 'harbour', 'quietly', 'rewritten', 'meanwhile')`,
      );
      assert.equal(words.length, 5, JSON.stringify(words));

      // Recorded as done: the next start fills nothing again.
      const again = await migrateToLatest(db, migrationsOfModules);
      assert.deepEqual(again.backfilled, []);
    } finally {
      await db.destroy();
    }
  });
});
