import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { statementsOf as statementsOfWork } from '../../test/support/statements-of.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { createProduct, placeOrder } from '../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';

const CUSTOMERS = 12;
const COMMENTS = 10;
const LIKERS = 3;
const RIGHTS_LOOKUP = /^select "role", "status", "erased_at" from "users" where "id" = /;

/** DECISIONS §15 with §6: the fields added for every resource are batched and guarded like the seed's. */
for (const dialect of DIALECTS) {
  describe(
    `GraphQL batching and guards of orders, products and likes (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let postId: number;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
        const products = [await createProduct(t, { stock: 1000 }), await createProduct(t, { stock: 1000 })];
        for (let i = 0; i < CUSTOMERS; i += 1) {
          const customer = await t.createUser();
          await placeOrder(
            t,
            customer.token,
            products.map((product) => ({ productId: product.id, quantity: 1 })),
          );
        }
        const author = await t.createUser();
        const post = await t.request('POST', `/api/users/${author.id}/posts`, {
          token: author.token,
          body: { title: 'Liked', content: 'Text' },
        });
        postId = post.body.id;
        const likers = await Promise.all(Array.from({ length: LIKERS }, () => t.createUser()));
        for (let c = 0; c < COMMENTS; c += 1) {
          const comment = await t.request('POST', `/api/posts/${postId}/comments`, {
            token: author.token,
            body: { text: `Comment ${c}` },
          });
          for (const liker of likers) {
            await t.request('POST', `/api/comments/${comment.body.id}/likes`, { token: liker.token });
          }
        }
      });
      after(() => t?.close());

      async function statementsOf(query: string) {
        const { result: res, statements } = await statementsOfWork(t.server.db, () =>
          gql(t, query, { token: t.adminToken }),
        );
        assert.equal(res.body.errors, undefined, res.text);
        return { statements: statements.filter((sql) => !RIGHTS_LOOKUP.test(sql)), data: res.body.data };
      }

      it("reads orders' customers and their lines' products in one statement per level, however many orders", async () => {
        const query = (limit: number) =>
          `{ orders(limit: ${limit}) { id amount customer { name email } items { quantity unitPrice product { name price } } } }`;
        const small = await statementsOf(query(2));
        const large = await statementsOf(query(CUSTOMERS));
        assert.equal(large.data.orders.length, CUSTOMERS);
        for (const order of large.data.orders) {
          assert.equal(order.items.length, 2);
          assert.match(order.customer.email, /@example\.com$/);
          assert.ok(
            order.items.every((item: { product: { name: string } }) => item.product.name.startsWith('Product')),
          );
        }
        assert.equal(large.statements.length, small.statements.length, large.statements.join('\n'));
        // The page, its lines, the customers, the products.
        assert.ok(large.statements.length <= 4, large.statements.join('\n'));
      });

      it("reads comments' likes and their users in one statement per level, however many comments", async () => {
        const query = (limit: number) =>
          `{ post(id: "${postId}") { comments(limit: ${limit}) { text likes { createdAt user { name } } few: likes(limit: 1) { userId } } } }`;
        const small = await statementsOf(query(2));
        const large = await statementsOf(query(COMMENTS));
        const comments = large.data.post.comments as { likes: unknown[]; few: unknown[] }[];
        assert.equal(comments.length, COMMENTS);
        assert.ok(comments.every((comment) => comment.likes.length === LIKERS && comment.few.length === 1));
        assert.equal(large.statements.length, small.statements.length, large.statements.join('\n'));
        // The post, its comments, the two pages of likes, the likers.
        assert.ok(large.statements.length <= 5, large.statements.join('\n'));
      });

      it('reads products in one statement whatever the page', async () => {
        const { statements, data } = await statementsOf(
          '{ products(limit: 100, orderBy: [PRICE_DESC]) { id name price } }',
        );
        assert.equal(data.products.length, 2);
        assert.equal(statements.length, 1, statements.join('\n'));
      });

      it('counts the new list fields in the cost limit and the new relations in the depth limit, refusing before any SQL', async () => {
        const refusedBy = async (query: string, guard: string) => {
          const { result: res, statements } = await statementsOfWork(t.server.db, () =>
            gql(t, query, { token: t.adminToken }),
          );
          assert.equal(res.body.data, undefined, res.text);
          assert.equal(res.body.errors[0].extensions.guard, guard, res.text);
          assert.deepEqual(statements, []);
        };
        // 100 × (1 + 100 × (1 + 1)) = 20,100 is accepted: each order's lines count 100 (an order has at most 100) ...
        const lines = await gql(t, '{ orders(limit: 100) { items { product { id } } } }', { token: t.adminToken });
        assert.equal(lines.body.errors, undefined, lines.text);
        // ... and 100 × (1 + 200 + 1 + 100 × (1 + 20)) = 230,200 is not.
        await refusedBy(
          '{ orders(limit: 100) { items { product { id } } customer { posts(limit: 100) { comments { id } } } } }',
          'cost',
        );
        await refusedBy(
          `{ post(id: "${postId}") { comments(limit: 100) { likes(limit: 100) { user { posts(limit: 100) { id } } } } } }`,
          'cost',
        );
        await refusedBy(
          '{ orders { customer { posts { comments { likes { user { posts { comments { post { author { id } } } } } } } } } } }',
          'depth',
        );
      });
    },
  );
}
