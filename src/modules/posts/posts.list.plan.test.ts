import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { assertServedByIndex } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { insertInChunks } from '../../../test/support/bulk-insert.ts';

/**
 * DECISIONS §12 on `GET /posts` and a user's posts at 50,000 posts on PostgreSQL (fresh statistics,
 * the plans the service gets: test/support/generic-plan.ts): each filter and sort alone, the default
 * order, and a deep page by cursor, each read through an index and no further than the page where the
 * order allows it. One author has a tenth of the posts, so their list is a big one too; the others have
 * nine each (the seed's generator gives five).
 */
const postgres = dialectNamed('postgres');
const POSTS = 50_000;
const AUTHORS = 5_000;

describe('posts list plans (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let first: number;
  let prolific: number;

  before(async () => {
    t = await startTestServer(postgres);
    await insertInChunks(AUTHORS, (from, to) =>
      sql`
      insert into users (name, email, age, role, status, email_verified, created_at, updated_at)
      select 'Author ' || i, 'author' || i || '@example.com', 30, 'user', 'active', true, now(), now()
      from generate_series(${from}::int, ${to}::int) as i`.execute(t.server.db),
    );
    first = (
      await t.server.db
        .selectFrom('users')
        .select('id')
        .where('email', '=', 'author1@example.com')
        .executeTakeFirstOrThrow()
    ).id;
    prolific = first;
    // A post a minute; every tenth by the first author, the others spread over the rest.
    await insertInChunks(POSTS, (from, to) =>
      sql`
      insert into posts (author_id, title, content, created_at, updated_at)
      select case when i % 10 = 0 then ${first} else ${first} + 1 + i % ${AUTHORS - 1} end,
             'Title ' || md5(i::text), 'Text ' || md5((i * 7)::text) || ' ' || md5((i * 13)::text),
             now() - make_interval(mins => ${POSTS} - i), now()
      from generate_series(${from}::int, ${to}::int) as i`.execute(t.server.db),
    );
    await sql`vacuum analyze posts`.execute(t.server.db);
  });
  after(() => t?.close());

  const assertIndexed = (path: string, maxRows: number) =>
    assertServedByIndex(
      t.server.db,
      'posts',
      () => t.request('GET', path, { token: t.adminToken }),
      maxRows,
      path,
    ) as Promise<{
      data: unknown[];
      nextCursor: string | null;
      pagination: { nextCursor: string | null };
    }>;

  it('serves each filter of GET /posts alone by an index', async () => {
    for (const filter of [
      `authorId=${first + 7}`,
      `authorId[in]=${first + 3},${first + 9}`,
      'title=Title%20x',
      // Six characters: with four, a sampled title holding them now and then made the planner expect one
      // match in a hundred and walk the ids instead (a 41,000-entry read, in one run of several).
      'title[contains]=abcdef',
      'search=abcdef',
      'createdAt[gte]=2000-01-01T00:00:00Z',
      'id[in]=5,7,11',
    ]) {
      await assertIndexed(`/api/posts?limit=20&${filter}`, 5_000);
    }
    // A creation time no post has, in the order of its own field and in the default order (by id): a
    // range is planned for its value (list-sql.ts), where a generic plan walked every id.
    await assertIndexed('/api/posts?limit=20&createdAt[lt]=2000-01-01T00:00:00Z&sort=-createdAt', 25);
    await assertIndexed('/api/posts?limit=20&createdAt[lt]=2000-01-01T00:00:00Z', 25);
  });

  it('serves the default order and every sort of GET /posts from an index, reading no more than the page', async () => {
    await assertIndexed('/api/posts?limit=20', 25);
    for (const field of ['id', 'title', 'createdAt', 'authorId']) {
      for (const sign of ['', '-']) await assertIndexed(`/api/posts?limit=20&sort=${sign}${field}`, 25);
    }
  });

  it('serves a user’s posts, filtered or sorted, from an index, reading no more than the page', async () => {
    const mine = `/api/users/${prolific}/posts?count=none&limit=20`;
    await assertIndexed(mine, 25);
    for (const sort of ['title', '-title', 'createdAt', '-createdAt', 'id'])
      await assertIndexed(`${mine}&sort=${sort}`, 25);
    // A range no post of theirs matches, in its own field's order and in the default one (newest first).
    await assertIndexed(`${mine}&createdAt[lt]=2000-01-01T00:00:00Z&sort=-createdAt`, 25);
    await assertIndexed(`${mine}&createdAt[lt]=2000-01-01T00:00:00Z`, 25);
    await assertIndexed(`${mine}&title=Title%20x&sort=title`, 25);
    await assertIndexed(`${mine}&search=abcd`, 5_000);
  });

  it('estimates the total of a common text with count=estimated without counting its matches', async () => {
    // Every title contains "Title": a capped count would read COUNT_EXACT_LIMIT + 1 rows through the
    // trigram index's bitmap, which collects all 50,000 first; the planner's estimate answers instead.
    const statements: string[] = [];
    const stop = observeQueries(t.server.db, (text) => statements.push(text));
    const res = await t.request('GET', '/api/posts?limit=20&title[contains]=Title&count=estimated', {
      token: t.adminToken,
    });
    stop();
    assert.equal(res.status, 200, res.text);
    const { total, totalEstimated } = (res.body as { pagination: { total: number; totalEstimated?: boolean } })
      .pagination;
    assert.equal(totalEstimated, true);
    assert.ok(Math.abs(total - POSTS) < POSTS * 0.2, `estimated ${total} of ${POSTS}`);
    assert.deepEqual(
      statements.filter((text) => /count\(/.test(text)),
      [],
      `statements run:\n${statements.join('\n')}`,
    );
    // A rare text is still counted, exactly.
    const rare = await t.request('GET', '/api/posts?limit=20&title[contains]=abcdef&count=estimated', {
      token: t.adminToken,
    });
    assert.deepEqual(
      [rare.body.pagination.total, rare.body.pagination.totalEstimated],
      [(rare.body.data as unknown[]).length, undefined],
    );
  });

  it('keeps 1,000 histogram values of titles and 200 of contents, whose long texts each search plans against', async () => {
    const { rows } = await sql<{ attname: string; buckets: number }>`
      select attname, array_length(histogram_bounds::text::text[], 1) - 1 as buckets
      from pg_stats where tablename = 'posts' and attname in ('title', 'content') order by attname`.execute(
      t.server.db,
    );
    assert.deepEqual(
      rows.map((row) => [row.attname, Number(row.buckets)]),
      [
        ['content', 200],
        ['title', 1000],
      ],
    );
  });

  it('reads a deep page by cursor no further than the first page', async () => {
    for (const sort of ['', '&sort=title', '&sort=-createdAt']) {
      // A cursor from the middle of the list: the 10,000th post, reached by key 100 posts at a time.
      let body = await assertIndexed(`/api/posts?limit=100${sort}`, 125);
      for (let page = 1; page < 100; page += 1) {
        body = (
          await t.request('GET', `/api/posts?limit=100${sort}&cursor=${body.nextCursor}`, { token: t.adminToken })
        ).body;
      }
      assert.ok(body.nextCursor, sort);
      const deep = await assertIndexed(`/api/posts?limit=20${sort}&cursor=${body.nextCursor}`, 25);
      assert.equal(deep.data.length, 20);
    }
    const mine = `/api/users/${prolific}/posts?count=none&sort=title`;
    const middle = await assertIndexed(`${mine}&limit=100&page=25`, 2_601);
    assert.ok(middle.pagination.nextCursor);
    await assertIndexed(`${mine}&limit=20&cursor=${middle.pagination.nextCursor}`, 25);
  });
});
