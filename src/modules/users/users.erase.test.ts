import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const V2 = '/api/v2';

for (const dialect of DIALECTS) {
  describe(`erasing a user (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const admin = () => ({ token: t.adminToken });

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    /** A user with a unique name, e-mail and age, a post, a comment, a like, an order and a trashed post. */
    async function personWithTraces() {
      const tag = `${Date.now()}${Math.floor(Math.random() * 1e6)}`;
      const name = `Zelda Erasable ${tag}`;
      const email = `zelda-${tag}@example.com`;
      const person = await t.createUser({ name, email, age: 47, password: 'password-123456' });
      const other = await t.createUser();
      const post = await t.request('POST', `${V2}/users/${person.id}/posts`, {
        token: person.token,
        body: { title: 'Mine', content: 'Body' },
      });
      assert.equal(post.status, 201, post.text);
      const trashedPost = await t.request('POST', `${V2}/users/${person.id}/posts`, {
        token: person.token,
        body: { title: 'Binned', content: 'Body' },
      });
      assert.equal((await t.request('DELETE', `${V2}/posts/${trashedPost.body.id}`, admin())).status, 204);
      const othersPost = await t.request('POST', `${V2}/users/${other.id}/posts`, {
        token: other.token,
        body: { title: 'Theirs', content: 'Body' },
      });
      const comment = await t.request('POST', `${V2}/posts/${othersPost.body.id}/comments`, {
        token: person.token,
        body: { text: 'A comment' },
      });
      assert.equal(comment.status, 201, comment.text);
      const othersComment = await t.request('POST', `${V2}/posts/${othersPost.body.id}/comments`, {
        token: other.token,
        body: { text: 'Another' },
      });
      const liked = await t.request('POST', `${V2}/comments/${othersComment.body.id}/likes`, { token: person.token });
      assert.equal(liked.status, 201, liked.text);
      await t.request('PATCH', `${V2}/users/${person.id}`, { token: person.token, body: { age: 48 } });
      const product = await t.request('POST', `${V2}/products`, {
        ...admin(),
        body: { name: `Lamp ${tag}`, category: 'home', price: 10, stock: 5 },
      });
      const order = await t.request('POST', `${V2}/orders`, {
        token: person.token,
        body: { items: [{ productId: product.body.id, quantity: 1 }] },
      });
      assert.equal(order.status, 201, order.text);
      return {
        person,
        other,
        name,
        email,
        postId: post.body.id as number,
        trashedPostId: trashedPost.body.id as number,
        commentId: comment.body.id as number,
        othersCommentId: othersComment.body.id as number,
        orderId: order.body.id as number,
      };
    }

    /** Every stored event's data, every trashed row and every revision's state (the audit), as text. */
    async function storedText(): Promise<string> {
      const events = await t.server.db.selectFrom('events').select('data').execute();
      const trash = await t.server.db.selectFrom('trash_items').select('row_data').execute();
      const revisions = await t.server.db.selectFrom('revisions').select('state').execute();
      return [
        ...events.map((row) => row.data),
        ...trash.map((row) => row.row_data),
        ...revisions.map((row) => row.state),
      ].join('\n');
    }

    const revisionsOf = (resource: string, itemId: number) =>
      t.server.db
        .selectFrom('revisions')
        .select('id')
        .where('resource', '=', resource)
        .where('item_id', '=', itemId)
        .execute();

    it('leaves a tombstone that orders still show, and none of the personal values in stored events or the trash', async () => {
      const x = await personWithTraces();
      assert.ok((await storedText()).includes(x.email), 'the e-mail is stored before');
      assert.ok((await revisionsOf('post', x.postId)).length > 0, 'the post has revisions before');
      const cursor = await feedEnd(t);

      const erased = await t.request('POST', `${V2}/users/${x.person.id}/erase`, admin());
      assert.equal(erased.status, 200, erased.text);
      assert.deepEqual(
        [erased.body.id, erased.body.name, erased.body.email, erased.body.age, erased.body.status],
        [x.person.id, '[erased]', null, null, 'inactive'],
      );

      const text = await storedText();
      for (const value of [x.email, x.name, '"age":47', '"age":48']) assert.ok(!text.includes(value), value);
      // The revisions of their content are gone with it; their own revisions stay, scrubbed.
      for (const [resource, id] of [
        ['post', x.postId],
        ['post', x.trashedPostId],
        ['comment', x.commentId],
      ] as const) {
        assert.deepEqual(await revisionsOf(resource, id), [], `${resource} ${id}`);
      }
      assert.ok((await revisionsOf('user', x.person.id)).length > 0);

      const events = await eventsAfter(t, cursor, 1);
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [['user.erased', { id: x.person.id }]],
      );
      const types = await t.server.db.selectFrom('events').select('type').where('type', '=', 'user.deleted').execute();
      assert.equal(types.length, 0);

      // The tombstone: REST null e-mail everywhere, GraphQL "".
      const read = await t.request('GET', `${V2}/users/${x.person.id}`, admin());
      assert.deepEqual([read.body.name, read.body.email, read.body.age], ['[erased]', null, null]);
      const gql = await t.request('POST', '/graphql', {
        ...admin(),
        body: { query: `{ user(id: ${x.person.id}) { name email age status } }` },
      });
      assert.deepEqual(gql.body.data.user, { name: '[erased]', email: '', age: null, status: 'inactive' });

      // Orders keep their customer.
      const order = await t.request('GET', `${V2}/orders/${x.orderId}?include=customer`, admin());
      assert.equal(order.status, 200, order.text);
      assert.equal(order.body.customerId, x.person.id);
      assert.deepEqual([order.body._embedded.customer.name, order.body._embedded.customer.email], ['[erased]', null]);

      // In no list.
      const users = await t.request('GET', `${V2}/users?limit=100&count=exact`, admin());
      assert.ok(!users.body.data.some((u: { id: number }) => u.id === x.person.id));
      assert.equal(users.body.pagination.total, users.body.data.length);
      const listed = await t.request('POST', '/graphql', {
        ...admin(),
        body: { query: '{ users(limit: 100) { id } }' },
      });
      assert.ok(Array.isArray(listed.body.data.users), listed.text);
      assert.ok(!listed.body.data.users.some((u: { id: string }) => Number(u.id) === x.person.id));
      const customers = await t.request('GET', `${V2}/customers?limit=100`, admin());
      assert.ok(!customers.body.data.some((c: { id: number }) => c.id === x.person.id));

      // Content gone for good, the trash included.
      assert.equal((await t.request('GET', `${V2}/posts/${x.postId}?trashed=include`, admin())).status, 404);
      assert.equal((await t.request('GET', `${V2}/posts/${x.trashedPostId}?trashed=include`, admin())).status, 404);
      assert.equal((await t.request('GET', `${V2}/comments/${x.commentId}?trashed=include`, admin())).status, 404);
      const likes = await t.request('GET', `${V2}/comments/${x.othersCommentId}/likes`, admin());
      assert.equal(likes.body.data.length, 0);

      // Signs in nowhere.
      const login = await t.request('POST', '/api/auth/token', {
        body: { email: x.email, password: 'password-123456' },
      });
      assert.equal(login.status, 401);
      const write = await t.request('PATCH', `${V2}/users/${x.person.id}`, { token: x.person.token, body: { age: 1 } });
      assert.equal(write.status, 401);

      const changed = await t.request('PATCH', `${V2}/users/${x.person.id}`, { ...admin(), body: { name: 'Back' } });
      assert.equal(changed.status, 409, 'a tombstone cannot be changed');

      // Again: the tombstone as it is, no second event.
      const again = await t.request('POST', `${V2}/users/${x.person.id}/erase`, admin());
      assert.equal(again.status, 200);
      assert.equal(again.body.name, '[erased]');
      const erasedEvents = await t.server.db
        .selectFrom('events')
        .select('type')
        .where('type', '=', 'user.erased')
        .execute();
      assert.equal(erasedEvents.length, 1);
    });

    it('erases a user who is in the trash: out of it as the tombstone, their cascade gone', async () => {
      const person = await t.createUser({ name: 'Trashed Person Qx', email: `trashed-qx-${Date.now()}@example.com` });
      const post = await t.request('POST', `${V2}/users/${person.id}/posts`, {
        token: person.token,
        body: { title: 'Mine', content: 'Body' },
      });
      assert.equal((await t.request('DELETE', `${V2}/users/${person.id}`, admin())).status, 204);
      const erased = await t.request('POST', `${V2}/users/${person.id}/erase`, admin());
      assert.equal(erased.status, 200, erased.text);
      assert.equal(erased.body.name, '[erased]');
      assert.equal((await t.request('GET', `${V2}/posts/${post.body.id}?trashed=include`, admin())).status, 404);
      assert.ok(!(await storedText()).includes('Trashed Person Qx'));
      const restore = await t.request('POST', `${V2}/users/${person.id}/restore`, admin());
      assert.equal(restore.status, 409);
    });

    it('is for admins (403 for the user themselves and others), 404 for an unknown id, and v2 only', async () => {
      const person = await t.createUser();
      const other = await t.createUser();
      assert.equal((await t.request('POST', `${V2}/users/${person.id}/erase`, { token: person.token })).status, 403);
      assert.equal((await t.request('POST', `${V2}/users/${person.id}/erase`, { token: other.token })).status, 403);
      assert.equal((await t.request('POST', `${V2}/users/999999/erase`, admin())).status, 404);
      assert.equal((await t.request('POST', `/api/v1/users/${person.id}/erase`, admin())).status, 404);
    });
  });
}
