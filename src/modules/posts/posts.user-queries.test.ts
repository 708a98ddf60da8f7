import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { seedPosts, type ListedPost } from '../../../test/support/posts.ts';

type Listing = { data: ListedPost[]; pagination: Record<string, unknown> };

/** DECISIONS §12 on a user's posts (`GET /api/users/{id}/posts`): a page list within its author. */
for (const dialect of DIALECTS) {
  describe(`a user's posts queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let authors: { id: number; token: string }[];
    let all: ListedPost[];
    let mine: ListedPost[];

    const list = async (userId: number, query: string, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}/users/${userId}/posts?${query}`, { token });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as Listing;
    };
    const idsOf = (posts: ListedPost[]) => posts.map((p) => p.id);

    before(async () => {
      t = await startTestServer(dialect);
      ({ authors, all } = await seedPosts(t));
      token = authors[1]!.token;
      mine = all.filter((p) => p.authorId === authors[0]!.id);
    });
    after(() => t?.close());

    it('filters and sorts within the user’s own posts', async () => {
      const me = authors[0]!.id;
      const expect = async (query: string, expected: ListedPost[]) =>
        assert.deepEqual(idsOf((await list(me, `limit=100&${query}`)).data), idsOf(expected), query);
      await expect('', mine);
      await expect(
        'search=alpha',
        mine.filter((p) => /alpha/i.test(p.title + ' ' + p.content)),
      );
      await expect(
        'title[contains]=a&sort=title',
        [...mine.filter((p) => /a/i.test(p.title))].sort((x, y) => (x.title < y.title ? -1 : 1)),
      );
      await expect(
        'sort=-createdAt',
        [...mine].sort((x, y) => (x.createdAt < y.createdAt ? 1 : x.createdAt > y.createdAt ? -1 : y.id - x.id)),
      );
      await expect(
        'createdAt[lt]=2026-01-01T05:00:00Z',
        mine.filter((p) => p.createdAt < '2026-01-01T05:00:00.000Z'),
      );
      // Another author's id filters inside this user's list: nothing, and a total of 0.
      const others = await list(me, `authorId=${authors[1]!.id}`);
      assert.deepEqual(others.data, []);
      assert.equal(others.pagination.total, 0);
    });

    it('gives the exact total by default, none with count=none, and exact below the limit with count=estimated', async () => {
      const me = authors[0]!.id;
      const exact = await list(me, 'limit=2');
      assert.equal(exact.pagination.total, mine.length);
      assert.equal(exact.pagination.totalPages, Math.ceil(mine.length / 2));
      assert.equal(exact.pagination.hasNext, true);
      const none = await list(me, 'limit=2&count=none');
      assert.ok(!('total' in none.pagination));
      assert.equal(none.pagination.hasNext, true);
      const estimated = await list(me, 'limit=2&count=estimated&search=filler');
      assert.equal(estimated.pagination.total, mine.filter((p) => p.content === 'filler').length);
      assert.equal(estimated.pagination.totalEstimated, undefined);
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks the user's posts by cursor, each once and in order, pages counted on (${prefix})`, async () => {
        const me = authors[2]!.id;
        for (const query of ['', 'sort=title', 'sort=-createdAt', 'count=none&sort=createdAt', 'search=e']) {
          const whole = idsOf((await list(me, `limit=100&${query}`, prefix)).data);
          const walked: number[] = [];
          let page = await list(me, `limit=1&${query}`, prefix);
          let pages = 1;
          for (;;) {
            walked.push(...idsOf(page.data));
            assert.equal(page.pagination.page, pages, query);
            const next = page.pagination.nextCursor as string | null;
            if (next === null) break;
            page = await list(me, `limit=1&${query}&cursor=${next}`, prefix);
            pages += 1;
          }
          assert.deepEqual(walked, whole, query);
        }
      });
    }

    it('refuses another user’s cursor, an unknown sort and bad values (422), and an unknown user (404)', async () => {
      const first = await list(authors[0]!.id, 'limit=1');
      const res = await t.request(
        'GET',
        `/api/users/${authors[1]!.id}/posts?limit=1&cursor=${first.pagination.nextCursor}`,
        {
          token,
        },
      );
      assert.equal(res.status, 422);
      assert.deepEqual(
        res.body.error.details.map((d: { field: string }) => d.field),
        ['cursor'],
      );
      for (const [query, field] of [
        ['sort=content', 'sort'],
        ['createdAt[gte]=2026-01-01', 'createdAt[gte]'],
        ['count=some', 'count'],
      ]) {
        const bad = await t.request('GET', `/api/users/${authors[0]!.id}/posts?${query}`, { token });
        assert.equal(bad.status, 422, query);
        assert.equal(bad.body.error.details[0].field, field, query);
      }
      const unknown = await t.request('GET', '/api/users/999999/posts?sort=title', { token });
      assert.equal(unknown.status, 404);
    });
  });
}
