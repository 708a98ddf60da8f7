import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { PNG_BYTES } from '../../../test/support/avatar-samples.ts';
import { eventsAfter, feedEnd, type SeenEvent } from '../../../test/support/events.ts';

const types = (events: SeenEvent[]) => events.map((e) => e.type);

for (const dialect of DIALECTS) {
  describe(`events: one per change, in the change's transaction (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV });
    });
    after(() => t?.close());

    /** Runs `write` and returns the events it produced (waiting for `expected` of them). */
    async function eventsOf(expected: number, write: () => Promise<unknown>): Promise<SeenEvent[]> {
      const start = await feedEnd(t);
      await write();
      return eventsAfter(t, start, expected);
    }

    /** The admin's v2 view of a resource, as `data` must show it. */
    const v2 = async (path: string) => (await t.request('GET', `/api/v2${path}`, { token: t.adminToken })).body;

    it('emits user.created, user.updated (PATCH, verify-email, promote, avatar) and user.deleted, each once, with the admin v2 view', async () => {
      let id = 0;
      const created = await eventsOf(1, async () => {
        id = (await t.createUser({ age: 30 })).id;
      });
      assert.deepEqual(types(created), ['user.created']);
      const event = created[0]!;
      assert.match(event.id, /^evt_[0-9a-f-]{36}$/);
      assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(event.data, await v2(`/users/${id}`));
      assert.equal(event.data._links.self.href, `/api/v2/users/${id}`);
      assert.ok(event.data.email, 'the admin view shows the email');

      const patched = await eventsOf(1, () =>
        t.request('PATCH', `/api/users/${id}`, { token: t.adminToken, body: { name: 'Renamed' } }),
      );
      assert.deepEqual(types(patched), ['user.updated']);
      assert.deepEqual(patched[0]!.data, await v2(`/users/${id}`));

      const verified = await eventsOf(1, () =>
        t.request('POST', `/api/users/${id}/verify-email`, { token: t.adminToken }),
      );
      assert.deepEqual(types(verified), ['user.updated']);
      assert.equal(verified[0]!.data.emailVerified, true);

      const promoted = await eventsOf(1, () =>
        t.request('POST', `/api/users/${id}/actions/promote-to-admin`, { token: t.adminToken }),
      );
      assert.deepEqual(types(promoted), ['user.updated']);
      assert.equal(promoted[0]!.data.role, 'admin');

      const avatar = await eventsOf(1, () =>
        t.request('PUT', `/api/users/${id}/avatar`, {
          token: t.adminToken,
          raw: PNG_BYTES,
          headers: { 'content-type': 'image/png' },
        }),
      );
      assert.deepEqual(types(avatar), ['user.updated']);

      const deleted = await eventsOf(1, () => t.request('DELETE', `/api/users/${id}`, { token: t.adminToken }));
      assert.deepEqual(types(deleted), ['user.deleted']);
      assert.deepEqual(deleted[0]!.data, { id });
    });

    it('emits nothing for a change that changes nothing or fails', async () => {
      const user = await t.createUser();
      await t.request('POST', `/api/users/${user.id}/actions/promote-to-admin`, { token: t.adminToken });
      await t.request('POST', `/api/users/${user.id}/verify-email`, { token: t.adminToken });
      const product = (
        await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'Rare', category: 'x', price: 1, stock: 1 },
        })
      ).body;
      const post = (
        await t.request('POST', `/api/users/${user.id}/posts`, {
          token: user.token,
          body: { title: 'T', content: 'C' },
        })
      ).body;
      const comment = (
        await t.request('POST', `/api/posts/${post.id}/comments`, { token: user.token, body: { text: 'Hi' } })
      ).body;
      await t.request('POST', `/api/comments/${comment.id}/likes`, { token: user.token });
      const order = { items: [{ productId: product.id, quantity: 1 }] };
      const placed = await t.request('POST', '/api/orders', {
        token: user.token,
        body: order,
        headers: { 'idempotency-key': 'events-replay' },
      });
      assert.equal(placed.status, 201);

      const none = await eventsOf(0, async () => {
        const answers = [
          await t.request('PATCH', `/api/users/${user.id}`, { token: t.adminToken, body: {} }),
          await t.request('PATCH', `/api/products/${product.id}`, { token: t.adminToken, body: {} }),
          await t.request('POST', `/api/users/${user.id}/actions/promote-to-admin`, { token: t.adminToken }),
          await t.request('POST', `/api/users/${user.id}/verify-email`, { token: t.adminToken }),
          await t.request('POST', `/api/comments/${comment.id}/likes`, { token: user.token }),
          await t.request('POST', '/api/orders', {
            token: user.token,
            body: order,
            headers: { 'idempotency-key': 'events-replay' },
          }),
        ];
        assert.deepEqual(
          answers.map((a) => a.status),
          [200, 200, 200, 200, 200, 201],
        );
        // Rolled back: out of stock, a duplicate email, a user with orders, an unlike of nothing.
        const refused = [
          await t.request('POST', '/api/orders', { token: user.token, body: order }),
          await t.request('POST', '/api/users', { body: { name: 'Dup', email: user.user.email } }),
          await t.request('DELETE', `/api/users/${user.id}`, { token: t.adminToken }),
          await t.request('DELETE', `/api/products/${product.id}`, { token: t.adminToken }),
        ];
        assert.deepEqual(
          refused.map((a) => a.status),
          [409, 409, 409, 409],
        );
        await t.request('DELETE', `/api/comments/${comment.id}/likes`, { token: t.adminToken });
      });
      assert.deepEqual(types(none), []);
    });

    it('emits post, comment and like events, the deletions with the ids they belonged to', async () => {
      const user = await t.createUser();
      let post: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
      const posted = await eventsOf(1, async () => {
        post = (
          await t.request('POST', `/api/users/${user.id}/posts`, {
            token: user.token,
            body: { title: 'T', content: 'C' },
          })
        ).body;
      });
      assert.deepEqual(types(posted), ['post.created']);
      assert.deepEqual(posted[0]!.data, await v2(`/posts/${post.id}`));

      let comment: Record<string, any> = {}; // eslint-disable-line @typescript-eslint/no-explicit-any
      const commented = await eventsOf(1, async () => {
        comment = (
          await t.request('POST', `/api/posts/${post.id}/comments`, { token: user.token, body: { text: 'Hi' } })
        ).body;
      });
      assert.deepEqual(types(commented), ['comment.created']);
      assert.deepEqual(commented[0]!.data, await v2(`/posts/${post.id}/comments/${comment.id}`));

      const liked = await eventsOf(1, () =>
        t.request('POST', `/api/comments/${comment.id}/likes`, { token: user.token }),
      );
      assert.deepEqual(types(liked), ['like.created']);
      assert.deepEqual(liked[0]!.data, await v2(`/comments/${comment.id}/likes/${user.id}`));

      const unliked = await eventsOf(1, () =>
        t.request('DELETE', `/api/comments/${comment.id}/likes`, { token: user.token }),
      );
      assert.deepEqual(types(unliked), ['like.deleted']);
      assert.deepEqual(unliked[0]!.data, { commentId: comment.id, userId: user.id });

      const removed = await eventsOf(1, () =>
        t.request('DELETE', `/api/posts/${post.id}/comments/${comment.id}`, { token: user.token }),
      );
      assert.deepEqual(types(removed), ['comment.deleted']);
      assert.deepEqual(removed[0]!.data, { id: comment.id, postId: post.id });
    });

    it('emits product events with the v2 view (createdAt) and none for stock an order takes', async () => {
      let id = 0;
      const created = await eventsOf(1, async () => {
        id = (
          await t.request('POST', '/api/products', {
            token: t.adminToken,
            body: { name: 'Lamp', category: 'home', price: 12.5, stock: 3 },
          })
        ).body.id;
      });
      assert.deepEqual(types(created), ['product.created']);
      assert.deepEqual(created[0]!.data, await v2(`/products/${id}`));
      assert.ok('createdAt' in created[0]!.data && !('created_at' in created[0]!.data));
      const updated = await eventsOf(1, () =>
        t.request('PUT', `/api/products/${id}`, {
          token: t.adminToken,
          body: { name: 'Lamp', category: 'home', price: 13, stock: 3 },
        }),
      );
      assert.deepEqual(types(updated), ['product.updated']);
      assert.equal(updated[0]!.data.price, 13);
      const deleted = await eventsOf(1, () => t.request('DELETE', `/api/products/${id}`, { token: t.adminToken }));
      assert.deepEqual(types(deleted), ['product.deleted']);
      assert.deepEqual(deleted[0]!.data, { id });
    });

    it('emits order.created, paid, refunded and cancelled with the order as an admin reads it', async () => {
      const customer = await t.createUser();
      const product = (
        await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'Mug', category: 'home', price: 4, stock: 10 },
        })
      ).body;
      const body = { items: [{ productId: product.id, quantity: 2 }] };
      let first = 0;
      let second = 0;
      const events = await eventsOf(4, async () => {
        first = (await t.request('POST', '/api/orders', { token: customer.token, body })).body.id;
        assert.equal((await t.request('POST', `/api/orders/${first}/pay`, { token: customer.token })).status, 200);
        assert.equal((await t.request('POST', `/api/orders/${first}/refund`, { token: t.adminToken })).status, 200);
        second = (await t.request('POST', '/api/orders', { token: customer.token, body })).body.id;
      });
      assert.deepEqual(types(events), ['order.created', 'order.paid', 'order.refunded', 'order.created']);
      assert.deepEqual(events[2]!.data, await v2(`/orders/${first}`));
      assert.equal(events[1]!.data.status, 'paid');
      const cancelled = await eventsOf(1, () =>
        t.request('POST', `/api/orders/${second}/cancel`, { token: customer.token }),
      );
      assert.deepEqual(types(cancelled), ['order.cancelled']);
      assert.deepEqual(cancelled[0]!.data, await v2(`/orders/${second}`));
      // The stock the orders took and gave back is told by the order events, not by product.updated.
      assert.ok(!types(events).includes('product.updated'));
    });

    it('emits report.completed from the report worker', async () => {
      let id = '';
      const events = await eventsOf(1, async () => {
        const queued = await t.request('POST', '/api/reports/generate', {
          token: t.adminToken,
          body: { type: 'users' },
        });
        id = queued.headers.get('location')!.split('/').pop()!;
        await t.server.app.services.reports.runNextJob('test-worker');
      });
      assert.deepEqual(types(events), ['report.completed']);
      assert.deepEqual(events[0]!.data, await v2(`/reports/${id}`));
      assert.equal(events[0]!.data.status, 'done');
    });

    it('emits the same events for GraphQL mutations (the same service calls)', async () => {
      let userId = 0;
      const events = await eventsOf(2, async () => {
        const created = await gql(t, 'mutation($input: CreateUserInput!) { createUser(input: $input) { id } }', {
          variables: { input: { name: 'Graph', email: `graph-${Date.now()}@example.com` } },
        });
        userId = Number(created.body.data.createUser.id);
        const post = await gql(t, 'mutation($input: CreatePostInput!) { createPost(input: $input) { id } }', {
          token: t.adminToken,
          variables: { input: { title: 'Via GraphQL', content: 'Body', authorId: userId } },
        });
        assert.ok(post.body.data?.createPost?.id, post.text);
      });
      assert.deepEqual(types(events), ['user.created', 'post.created']);
      assert.equal(events[0]!.data.id, userId);
      assert.equal(events[1]!.data._links.author.href, `/api/v2/users/${userId}`);
    });
  });
}
