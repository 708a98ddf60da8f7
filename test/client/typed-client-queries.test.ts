import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from 'openapi-fetch';
import { DIALECTS } from '../support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../support/orders.ts';
import { checkedClient } from './checked-client.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import type { paths } from './api-v2.generated.ts';

/**
 * DECISIONS §12's parameters through the client generated from the v2 document (the products list has
 * its own in products.queries.test.ts): filters with operators, `sort`, `count`, `cursor` and `include`
 * on users, GET /posts, a user's posts, a post's comments, a comment's likes and orders. `tsc --strict`
 * refuses a parameter the document does not declare; each answer is checked against the document.
 */
for (const dialect of DIALECTS) {
  describe(
    `the typed v2 client with filters, sort, count, cursor and include (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let client: Client<paths>;
      let ann: { id: number; token: string };
      let bob: { id: number; token: string };
      let postId: number;
      let commentId: number;
      const headers = () => ({ authorization: `Bearer ${t.adminToken}` });

      before(async () => {
        t = await startTestServer(dialect, QUIET_ENV);
        client = checkedClient(t);
        ann = await t.createUser({ name: 'Ann', age: 20 });
        bob = await t.createUser({ name: 'Bob', age: 40 });
        for (const [who, title] of [
          [ann, 'Alpha'],
          [bob, 'Beta'],
          [ann, 'Gamma'],
        ] as const) {
          const res = await t.request('POST', `/api/users/${who.id}/posts`, {
            token: who.token,
            body: { title, content: 'x' },
          });
          postId = res.body.id;
        }
        for (const who of [ann, bob, ann]) {
          const res = await t.request('POST', `/api/posts/${postId}/comments`, {
            token: who.token,
            body: { text: 'c' },
          });
          commentId ??= res.body.id;
        }
        for (const who of [ann, bob]) await t.request('POST', `/api/comments/${commentId}/likes`, { token: who.token });
        const product = await createProduct(t, { priceCents: 1000, stock: 100 });
        for (const quantity of [1, 3, 5]) await placeOrder(t, ann.token, [{ productId: product.id, quantity }]);
      });
      after(() => t?.close());

      it('filters, sorts, counts and pages users by cursor, with their posts embedded', async () => {
        const query = {
          'age[gte]': 20,
          'name[contains]': 'o',
          sort: '-age',
          count: 'none',
          limit: 1,
          include: 'posts',
        } as const;
        const first = await client.GET('/users', { params: { query }, headers: headers() });
        assert.equal(first.response.status, 200);
        assert.deepEqual(
          first.data!.data.map((u) => u.name),
          ['Bob'],
        );
        assert.equal(first.data!.pagination.total, undefined);
        assert.deepEqual(
          first.data!.data[0]!._embedded?.posts?.map((p) => p.title),
          ['Beta'],
        );
        const cursor = first.data!.pagination.nextCursor;
        assert.equal(cursor, null, 'Bob is the only match');
        const refused = await client.GET('/users', {
          params: { query: { sort: 'name', cursor: 'nope' } },
          headers: headers(),
        });
        assert.equal(refused.response.status, 422);
      });

      it('filters GET /posts and a user’s posts, with count, cursor and the author embedded', async () => {
        const query = {
          'authorId[in]': `${ann.id},${bob.id}`,
          'title[gte]': 'B',
          sort: 'title',
          count: 'exact',
          limit: 1,
        } as const;
        const first = await client.GET('/posts', {
          params: { query: { ...query, include: 'author' } },
          headers: headers(),
        });
        assert.deepEqual(
          first.data!.data.map((p) => [p.title, p._embedded?.author?.name]),
          [['Beta', 'Bob']],
        );
        assert.equal(first.data!.pagination?.total, 2);
        const next = await client.GET('/posts', {
          params: { query: { ...query, cursor: first.data!.nextCursor! } },
          headers: headers(),
        });
        assert.deepEqual(
          next.data!.data.map((p) => p.title),
          ['Gamma'],
        );
        const mine = await client.GET('/users/{userId}/posts', {
          params: {
            path: { userId: ann.id },
            query: { 'createdAt[gte]': '2000-01-01T00:00:00Z', search: 'gam', count: 'estimated' },
          },
          headers: headers(),
        });
        assert.deepEqual(
          mine.data!.data.map((p) => p.title),
          ['Gamma'],
        );
        assert.equal(mine.data!.pagination.total, 1);
      });

      it('filters a post’s comments and a comment’s likes, with authors and users embedded', async () => {
        const comments = await client.GET('/posts/{postId}/comments', {
          params: {
            path: { postId },
            query: { 'authorId[in]': String(ann.id), sort: '-createdAt', include: 'author,post' },
          },
          headers: headers(),
        });
        assert.equal(comments.data!.data.length, 2);
        assert.ok(
          comments.data!.data.every((c) => c._embedded?.author?.id === ann.id && c._embedded.post?.id === postId),
        );
        const likes = await client.GET('/comments/{commentId}/likes', {
          params: { path: { commentId }, query: { 'userId[ne]': ann.id, count: 'none', include: 'user' } },
          headers: headers(),
        });
        assert.deepEqual(
          likes.data!.data.map((l) => l._embedded?.user?.name),
          ['Bob'],
        );
      });

      it('filters orders by amount and sorts them, with the customer and each line’s product embedded', async () => {
        const orders = await client.GET('/orders', {
          params: {
            query: { 'amount[gte]': 30, sort: '-amount', count: 'estimated', include: 'customer,items.product' },
          },
          headers: headers(),
        });
        assert.deepEqual(
          orders.data!.data.map((o) => o.amount),
          [50, 30],
        );
        assert.equal(orders.data!.pagination.total, 2);
        assert.ok(orders.data!.data.every((o) => o._embedded?.customer?.id === ann.id));
        assert.ok(
          orders.data!.data.every((o) => o.items.every((item) => item._embedded?.product?.id === item.productId)),
        );
      });
    },
  );
}
