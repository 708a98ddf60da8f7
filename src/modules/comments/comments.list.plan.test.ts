import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { assertServedByIndex } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { insertInChunks } from '../../../test/support/bulk-insert.ts';

/**
 * DECISIONS §12 on a post's comments at 40,000 comments on one post (and 10,000 on 999 others) on
 * PostgreSQL, the plans the service gets (test/support/generic-plan.ts): each filter and sort alone and
 * a deep page by cursor, read through an index and no further than the page where the order allows it.
 */
const postgres = dialectNamed('postgres');
const COMMENTS = 50_000;
const POSTS = 1_000;

describe('comments list plans (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let people: { id: number; token: string }[];
  let busy: number;

  before(async () => {
    t = await startTestServer(postgres);
    people = [];
    for (let i = 0; i < 20; i += 1) people.push(await t.createUser());
    const at = new Date().toISOString();
    await insertInChunks(POSTS, (from, to) =>
      sql`
      insert into posts (author_id, title, content, created_at, updated_at)
      select ${people[0]!.id}::int, 'Post ' || i, 'C', ${at}, ${at} from generate_series(${from}::int, ${to}::int) as i`.execute(
        t.server.db,
      ),
    );
    busy = (await t.server.db.selectFrom('posts').select('id').where('title', '=', 'Post 1').executeTakeFirstOrThrow())
      .id;
    const ids = people.map((p) => p.id);
    // Four in five on the busy post, the others spread over the rest; by twenty authors in turn, one a second.
    await insertInChunks(COMMENTS, (from, to) =>
      sql`
      insert into comments (post_id, author_id, text, created_at)
      select case when i % 5 = 0 then ${busy}::int + 1 + i % ${POSTS - 1} else ${busy}::int end,
             (${sql.val(ids)}::int[])[1 + i % 20], 'Comment ' || i,
             now() - make_interval(secs => ${COMMENTS} - i)
      from generate_series(${from}::int, ${to}::int) as i`.execute(t.server.db),
    );
    await sql`vacuum analyze comments`.execute(t.server.db);
  });
  after(() => t?.close());

  const assertIndexed = (path: string, maxRows: number) =>
    assertServedByIndex(
      t.server.db,
      'comments',
      () => t.request('GET', path, { token: people[0]!.token }),
      maxRows,
      path,
    ) as Promise<{ data: unknown[]; pagination: { nextCursor: string | null } }>;

  it('serves each filter alone by an index', async () => {
    const list = `/api/posts/${busy}/comments?count=none&limit=20`;
    await assertIndexed(list, 25);
    for (const filter of [
      `authorId=${people[3]!.id}`,
      `authorId[in]=${people[3]!.id},${people[4]!.id}`,
      'createdAt[gte]=2000-01-01T00:00:00Z',
      'id[in]=5,7,11',
    ]) {
      await assertIndexed(`${list}&${filter}`, 5_000);
    }
  });

  it('serves every sort in both directions from an index, reading no more than the page', async () => {
    for (const field of ['id', 'createdAt', 'authorId']) {
      for (const sign of ['', '-']) {
        await assertIndexed(`/api/posts/${busy}/comments?count=none&limit=20&sort=${sign}${field}`, 25);
      }
    }
  });

  it('reads a deep page by cursor no further than the first page', async () => {
    for (const sort of ['', '&sort=createdAt', '&sort=-createdAt']) {
      const list = `/api/posts/${busy}/comments?count=none${sort}`;
      const deep = await assertIndexed(`${list}&limit=100&page=200`, 20_101);
      assert.ok(deep.pagination.nextCursor, sort);
      await assertIndexed(`${list}&limit=20&cursor=${deep.pagination.nextCursor}`, 25);
    }
  });
});
