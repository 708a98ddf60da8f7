import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { assertServedByIndex } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { insertInChunks } from '../../../test/support/bulk-insert.ts';

/**
 * DECISIONS §12 on a comment's likes at 20,000 likes of one comment (and 20,000 over 999 others) on
 * PostgreSQL, the plans the service gets (test/support/generic-plan.ts): each filter and sort alone and
 * a deep page by cursor, read through an index and no further than the page where the order allows it.
 */
const postgres = dialectNamed('postgres');
const USERS = 20_000;
const COMMENTS = 1_000;

describe('likes list plans (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let liked: number;
  let someone: number;

  before(async () => {
    t = await startTestServer(postgres);
    const author = await t.createUser();
    const at = new Date().toISOString();
    await insertInChunks(USERS, (from, to) =>
      sql`
      insert into users (name, email, age, role, status, email_verified, created_at, updated_at)
      select 'Fan ' || i, 'fan' || i || '@example.com', 30, 'user', 'active', true, ${at}, ${at}
      from generate_series(${from}::int, ${to}::int) as i`.execute(t.server.db),
    );
    const post = await t.request('POST', `/api/users/${author.id}/posts`, {
      token: author.token,
      body: { title: 'T', content: 'C' },
    });
    await insertInChunks(COMMENTS, (from, to) =>
      sql`
      insert into comments (post_id, author_id, text, created_at)
      select ${post.body.id}::int, ${author.id}::int, 'Comment ' || i, ${at} from generate_series(${from}::int, ${to}::int) as i`.execute(
        t.server.db,
      ),
    );
    liked = (
      await t.server.db.selectFrom('comments').select('id').where('text', '=', 'Comment 1').executeTakeFirstOrThrow()
    ).id;
    const fans = await t.server.db
      .selectFrom('users')
      .select('id')
      .where('name', 'like', 'Fan %')
      .orderBy('id')
      .execute();
    someone = fans[123]!.id;
    // Every fan likes the liked comment, one a second; and one other comment each.
    await sql`
      insert into comment_likes (comment_id, user_id, created_at)
      select ${liked}::int, u.id, now() - make_interval(secs => ${USERS} - (u.id - ${fans[0]!.id}::int))
      from users as u where u.name like 'Fan %'
      union all
      select ${liked}::int + 1 + u.id % ${COMMENTS - 1}, u.id, now() from users as u where u.name like 'Fan %'`.execute(
      t.server.db,
    );
    await sql`vacuum analyze comment_likes`.execute(t.server.db);
  });
  after(() => t?.close());

  const assertIndexed = (path: string, maxRows: number) =>
    assertServedByIndex(
      t.server.db,
      'comment_likes',
      () => t.request('GET', path, { token: t.adminToken }),
      maxRows,
      path,
    ) as Promise<{ data: unknown[]; pagination: { nextCursor: string | null } }>;

  it('serves each filter alone by an index', async () => {
    const list = `/api/comments/${liked}/likes?count=none&limit=20`;
    await assertIndexed(list, 25);
    for (const filter of [
      `userId=${someone}`,
      `userId[in]=${someone},${someone + 1}`,
      `userId[gte]=${someone}`,
      'createdAt[gte]=2000-01-01T00:00:00Z',
    ]) {
      await assertIndexed(`${list}&${filter}`, 5_000);
    }
  });

  it('serves every sort in both directions from an index, reading no more than the page', async () => {
    for (const field of ['userId', 'createdAt']) {
      for (const sign of ['', '-']) {
        await assertIndexed(`/api/comments/${liked}/likes?count=none&limit=20&sort=${sign}${field}`, 25);
      }
    }
  });

  it('reads a deep page by cursor no further than the first page', async () => {
    for (const sort of ['', '&sort=userId', '&sort=-createdAt']) {
      const list = `/api/comments/${liked}/likes?count=none${sort}`;
      const deep = await assertIndexed(`${list}&limit=100&page=100`, 10_101);
      assert.ok(deep.pagination.nextCursor, sort);
      await assertIndexed(`${list}&limit=20&cursor=${deep.pagination.nextCursor}`, 25);
    }
  });
});
