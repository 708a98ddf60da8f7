import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** Rows matching each list's filter: more than a COUNT_EXACT_LIMIT of 5. */
const MATCHING = 8;

/**
 * DECISIONS §12's `count=estimated` on the lists users.count-limit.test.ts leaves out (a user's posts,
 * a comment's likes, orders, products), under /api/v1 and /api/v2, each with a filter no counter
 * answers: above COUNT_EXACT_LIMIT=5 PostgreSQL's estimate flagged `totalEstimated: true` (SQLite
 * counts), at or below it the exact total unflagged.
 */
for (const dialect of DIALECTS) {
  describe(`COUNT_EXACT_LIMIT on the other lists (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const above: string[] = [];
    const below: string[] = [];

    before(async () => {
      t = await startTestServer(dialect, { ...QUIET_ENV, COUNT_EXACT_LIMIT: '5' });
      const people = [];
      for (let i = 0; i < MATCHING; i += 1) people.push(await t.createUser());
      const author = people[0]!;
      let postId = 0;
      for (let i = 0; i < MATCHING; i += 1) {
        const res = await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title: `Counted ${i}`, content: 'text' },
        });
        postId = res.body.id;
      }
      const comment = await t.request('POST', `/api/posts/${postId}/comments`, {
        token: author.token,
        body: { text: 'liked' },
      });
      for (const [i, person] of people.entries()) {
        await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: person.token });
        const product = await createProduct(t, { priceCents: 500 + i, stock: 3 });
        await placeOrder(t, person.token, [{ productId: product.id, quantity: 1 }]);
      }
      for (const prefix of ['/api/v1', '/api/v2']) {
        above.push(
          `${prefix}/users/${author.id}/posts?title[contains]=counted`,
          `${prefix}/comments/${comment.body.id}/likes?userId[gte]=1`,
          `${prefix}/orders?amount[gte]=1`,
          `${prefix}/products?stock[lt]=100`,
        );
        below.push(
          `${prefix}/users/${author.id}/posts?title[contains]=counted&title[lte]=Counted%203`,
          `${prefix}/comments/${comment.body.id}/likes?userId[lte]=${people[2]!.id}&userId[gte]=${people[0]!.id}`,
          `${prefix}/orders?amount[gte]=1&customerId[in]=${people.slice(0, 4).map((p) => p.id)}`,
          `${prefix}/products?stock[lt]=100&price[lt]=5.04`,
        );
      }
    });
    after(() => t?.close());

    const pagination = async (path: string) => {
      const res = await t.request('GET', `${path}&count=estimated&limit=2`, { token: t.adminToken });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.pagination as { total?: number; totalEstimated?: boolean };
    };

    it(
      dialect.name === 'postgres'
        ? 'estimates a total above COUNT_EXACT_LIMIT=5 and says so with totalEstimated'
        : 'counts exactly above COUNT_EXACT_LIMIT=5 (SQLite has no estimate)',
      async () => {
        for (const path of above) {
          const page = await pagination(path);
          if (dialect.name === 'postgres') {
            assert.equal(page.totalEstimated, true, path);
            assert.ok(typeof page.total === 'number' && page.total > 5, `${path}: ${page.total}`);
          } else {
            assert.deepEqual([page.total, page.totalEstimated], [MATCHING, undefined], path);
          }
        }
      },
    );

    it('gives the exact total, unflagged, at or below COUNT_EXACT_LIMIT=5', async () => {
      for (const path of below) {
        const page = await pagination(path);
        assert.equal(page.totalEstimated, undefined, path);
        assert.ok(page.total !== undefined && page.total <= 5 && page.total > 2, `${path}: ${page.total}`);
        const exact = await t.request('GET', `${path}&count=exact&limit=2`, { token: t.adminToken });
        assert.equal(page.total, exact.body.pagination.total, path);
      }
    });
  });
}
