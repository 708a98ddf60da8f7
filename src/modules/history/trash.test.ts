import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const PRODUCT = { name: 'Lamp', category: 'home', price: 12.5, stock: 5 };

for (const dialect of DIALECTS) {
  describe(`the trash (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    async function postOf(user: { id: number; token: string }, title = 'Title') {
      const res = await t.request('POST', `/api/v2/users/${user.id}/posts`, {
        token: user.token,
        body: { title, content: 'Content' },
      });
      assert.equal(res.status, 201, res.text);
      return res.body as { id: number };
    }
    async function commentOn(postId: number, user: { token: string }, text = 'Nice') {
      const res = await t.request('POST', `/api/v2/posts/${postId}/comments`, { token: user.token, body: { text } });
      assert.equal(res.status, 201, res.text);
      return res.body as { id: number };
    }
    const like = async (commentId: number, user: { token: string }) =>
      assert.equal((await t.request('POST', `/api/v2/comments/${commentId}/likes`, { token: user.token })).status, 201);

    it('a deleted post is 404 and out of lists and counts; its author sees it with trashed=include and restores it with its comments', async () => {
      const alice = await t.createUser();
      const bob = await t.createUser();
      const post = await postOf(alice);
      const comment = await commentOn(post.id, bob);
      await like(comment.id, alice);
      const cursor = await feedEnd(t);
      assert.equal((await t.request('DELETE', `/api/v2/posts/${post.id}`, { token: alice.token })).status, 204);

      assert.equal((await t.request('GET', `/api/v2/posts/${post.id}`, { token: alice.token })).status, 404);
      const mine = await t.request('GET', `/api/v2/users/${alice.id}/posts?count=exact`, { token: alice.token });
      assert.deepEqual([mine.body.data.length, mine.body.pagination.total], [0, 0]);
      assert.equal((await t.request('GET', `/api/v2/comments/${comment.id}`, { token: bob.token })).status, 404);

      const asAuthor = await t.request('GET', `/api/v2/posts/${post.id}?trashed=include`, { token: alice.token });
      assert.equal(asAuthor.status, 200, asAuthor.text);
      assert.equal(asAuthor.body.id, post.id);
      assert.deepEqual(asAuthor.body.deletedBy, { type: 'user', id: alice.id });
      assert.equal(typeof asAuthor.body.deletionId, 'string');
      const days = (Date.parse(asAuthor.body.purgeAt) - Date.parse(asAuthor.body.deletedAt)) / 86_400_000;
      assert.equal(days, 30);
      const asOther = await t.request('GET', `/api/v2/posts/${post.id}?trashed=include`, { token: bob.token });
      assert.equal(asOther.status, 403);
      assert.equal((await t.request('POST', `/api/v2/posts/${post.id}/restore`, { token: bob.token })).status, 403);

      const restored = await t.request('POST', `/api/v2/posts/${post.id}/restore`, { token: alice.token });
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.deletedAt, undefined);
      const back = await t.request('GET', `/api/v2/comments/${comment.id}`, { token: bob.token });
      assert.equal(back.status, 200);
      const likes = await t.request('GET', `/api/v2/comments/${comment.id}/likes`, { token: bob.token });
      assert.equal(likes.body.data.length, 1);
      const again = await t.request('POST', `/api/v2/posts/${post.id}/restore`, { token: alice.token });
      assert.equal(again.status, 409);
      assert.equal(again.body.error.code, 'NOT_DELETED');
      const count = await t.request('GET', `/api/v2/users/${alice.id}/posts?count=exact`, { token: alice.token });
      assert.equal(count.body.pagination.total, 1);

      const events = await eventsAfter(t, cursor, 3);
      assert.deepEqual(
        events.map((e) => [e.type, e.data]),
        [
          ['post.deleted', { id: post.id }],
          ['post.restored', { id: post.id }],
          ['comment.restored', { id: comment.id, postId: post.id }],
        ],
      );
    });

    it('deleting a user trashes their cascade under one deletionId, and restoring brings back exactly it', async () => {
      const carol = await t.createUser();
      const dave = await t.createUser();
      const kept = await postOf(carol, 'Kept');
      const earlier = await postOf(carol, 'Trashed before');
      const onOwn = await commentOn(kept.id, dave, 'by dave on carol');
      const davesPost = await postOf(dave, 'Dave');
      const byCarol = await commentOn(davesPost.id, carol, 'by carol on dave');
      await like(byCarol.id, dave);
      await like(onOwn.id, carol);
      assert.equal((await t.request('DELETE', `/api/v2/posts/${earlier.id}`, { token: carol.token })).status, 204);
      const cursor = await feedEnd(t);

      assert.equal((await t.request('DELETE', `/api/v2/users/${carol.id}`, { token: t.adminToken })).status, 204);
      const admin = { token: t.adminToken };
      assert.equal((await t.request('GET', `/api/v2/users/${carol.id}`, admin)).status, 404);
      assert.equal((await t.request('GET', `/api/v2/posts/${kept.id}`, admin)).status, 404);
      assert.equal((await t.request('GET', `/api/v2/comments/${onOwn.id}`, admin)).status, 404);
      assert.equal((await t.request('GET', `/api/v2/comments/${byCarol.id}`, admin)).status, 404);
      const user = await t.request('GET', `/api/v2/users/${carol.id}?trashed=include`, admin);
      const post = await t.request('GET', `/api/v2/posts/${kept.id}?trashed=include`, admin);
      const earlierPost = await t.request('GET', `/api/v2/posts/${earlier.id}?trashed=include`, admin);
      assert.equal(user.body.deletionId, post.body.deletionId, 'one deletion for the cascade');
      assert.notEqual(earlierPost.body.deletionId, user.body.deletionId);
      const notAdmin = await t.request('GET', `/api/v2/users/${carol.id}?trashed=include`, { token: dave.token });
      assert.equal(notAdmin.status, 403);

      const restored = await t.request('POST', `/api/v2/users/${carol.id}/restore`, admin);
      assert.equal(restored.status, 200, restored.text);
      assert.equal(restored.body.id, carol.id);
      for (const path of [`/posts/${kept.id}`, `/comments/${onOwn.id}`, `/comments/${byCarol.id}`]) {
        assert.equal((await t.request('GET', `/api/v2${path}`, admin)).status, 200, path);
      }
      assert.equal((await t.request('GET', `/api/v2/posts/${earlier.id}`, admin)).status, 404, 'not in the cascade');
      const likes = await t.request('GET', `/api/v2/comments/${byCarol.id}/likes`, admin);
      assert.deepEqual(
        likes.body.data.map((l: { userId: number }) => l.userId),
        [dave.id],
      );
      const signIn = await t.request('GET', `/api/v2/users/${carol.id}`, { token: carol.token });
      assert.equal(signIn.status, 200);

      const events = await eventsAfter(t, cursor, 5);
      assert.deepEqual(
        events.map((e) => e.type),
        ['user.deleted', 'user.restored', 'post.restored', 'comment.restored', 'comment.restored'],
      );
    });

    it('unique keys count live users only: a trashed user’s e-mail is free, and restoring it then is 409 CONFLICT', async () => {
      const email = `reuse-${Date.now()}-${dialect.name}@example.com`;
      const first = await t.createUser({ email });
      assert.equal((await t.request('DELETE', `/api/v2/users/${first.id}`, { token: first.token })).status, 204);
      const second = await t.createUser({ email });
      assert.notEqual(second.id, first.id);
      const restore = await t.request('POST', `/api/v2/users/${first.id}/restore`, { token: t.adminToken });
      assert.equal(restore.status, 409);
      assert.equal(restore.body.error.code, 'CONFLICT');
      const still = await t.request('GET', `/api/v2/users/${first.id}?trashed=include`, { token: t.adminToken });
      assert.equal(still.status, 200, 'nothing half-restored: still in the trash');
    });

    it('permanent delete: 403 for a non-admin; an admin removes a live item (deleted then purged) or a trashed one (purged)', async () => {
      const erin = await t.createUser();
      const live = await postOf(erin);
      const trashed = await postOf(erin);
      const refused = await t.request('DELETE', `/api/v2/posts/${live.id}?permanent=true`, { token: erin.token });
      assert.equal(refused.status, 403);
      assert.equal((await t.request('GET', `/api/v2/posts/${live.id}`, { token: erin.token })).status, 200);
      assert.equal((await t.request('DELETE', `/api/v2/posts/${trashed.id}`, { token: erin.token })).status, 204);
      const cursor = await feedEnd(t);
      const admin = { token: t.adminToken };
      assert.equal((await t.request('DELETE', `/api/v2/posts/${live.id}?permanent=true`, admin)).status, 204);
      assert.equal((await t.request('DELETE', `/api/v2/posts/${trashed.id}?permanent=true`, admin)).status, 204);
      for (const id of [live.id, trashed.id]) {
        assert.equal((await t.request('GET', `/api/v2/posts/${id}?trashed=include`, admin)).status, 404);
        assert.equal((await t.request('POST', `/api/v2/posts/${id}/restore`, admin)).status, 404);
      }
      const events = await eventsAfter(t, cursor, 3);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id]),
        [
          ['post.deleted', live.id],
          ['post.purged', live.id],
          ['post.purged', trashed.id],
        ],
      );
    });

    it('trashed=only lists the trash: all of it for admins, an author’s own posts and comments, 403 for others', async () => {
      const frank = await t.createUser();
      const gina = await t.createUser();
      const f1 = await postOf(frank);
      const f2 = await postOf(frank);
      const g1 = await postOf(gina);
      for (const [id, token] of [
        [f1.id, frank.token],
        [f2.id, frank.token],
        [g1.id, gina.token],
      ] as const) {
        assert.equal((await t.request('DELETE', `/api/v2/posts/${id}`, { token })).status, 204);
      }
      const own = await t.request('GET', '/api/v2/posts?trashed=only&limit=1', { token: frank.token });
      assert.equal(own.status, 200, own.text);
      assert.deepEqual(
        own.body.data.map((p: { id: number }) => p.id),
        [f2.id],
      );
      const next = await t.request('GET', `/api/v2/posts?trashed=only&limit=1&cursor=${own.body.nextCursor}`, {
        token: frank.token,
      });
      assert.deepEqual(
        next.body.data.map((p: { id: number }) => p.id),
        [f1.id],
      );
      assert.equal(next.body.nextCursor, null);
      const all = await t.request('GET', '/api/v2/posts?trashed=only&limit=100', { token: t.adminToken });
      const ids = all.body.data.map((p: { id: number }) => p.id);
      assert.ok([f1.id, f2.id, g1.id].every((id) => ids.includes(id)));
      assert.ok(all.body.data.every((p: { deletedAt?: string }) => typeof p.deletedAt === 'string'));
      assert.equal((await t.request('GET', '/api/v2/users?trashed=only', { token: frank.token })).status, 403);
      assert.equal((await t.request('GET', '/api/v2/products?trashed=only')).status, 401);
      assert.equal((await t.request('GET', '/api/v2/users?trashed=only', { token: t.adminToken })).status, 200);
      const badCursor = await t.request('GET', '/api/v2/posts?trashed=only&cursor=nonsense', { token: frank.token });
      assert.equal(badCursor.status, 422);
    });

    it('a product goes to the trash and back (admins), and one in orders still cannot be deleted', async () => {
      const admin = { token: t.adminToken };
      const created = await t.request('POST', '/api/v2/products', { ...admin, body: PRODUCT });
      assert.equal((await t.request('DELETE', `/api/v2/products/${created.body.id}`, admin)).status, 204);
      assert.equal((await t.request('GET', `/api/v2/products/${created.body.id}`)).status, 404);
      const inTrash = await t.request('GET', `/api/v2/products/${created.body.id}?trashed=include`, admin);
      assert.equal(inTrash.status, 200);
      assert.equal(inTrash.headers.get('cache-control'), 'private, no-store');
      assert.equal((await t.request('GET', `/api/v2/products/${created.body.id}?trashed=include`)).status, 401);
      const restored = await t.request('POST', `/api/v2/products/${created.body.id}/restore`, admin);
      assert.equal(restored.status, 200);
      assert.equal(restored.body.name, 'Lamp');

      const buyer = await t.createUser();
      const order = await t.request('POST', '/api/v2/orders', {
        token: buyer.token,
        body: { items: [{ productId: created.body.id, quantity: 1 }] },
      });
      assert.equal(order.status, 201, order.text);
      assert.equal((await t.request('DELETE', `/api/v2/products/${created.body.id}`, admin)).status, 409);
      assert.equal((await t.request('DELETE', `/api/v2/users/${buyer.id}`, admin)).status, 409);
    });
  });

  describe(`the trash's retention sweep (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      // A trash kept about a tenth of a second, swept every 50 ms.
      t = await startTestServer(dialect, { TRASH_RETENTION_DAYS: '0.000001', TRASH_SWEEP_INTERVAL_MS: '50' });
    });
    after(() => t?.close());

    it('removes trashed items past TRASH_RETENTION_DAYS for good, with *.purged', async () => {
      const admin = { token: t.adminToken };
      const created = await t.request('POST', '/api/v2/products', { ...admin, body: PRODUCT });
      const cursor = await feedEnd(t);
      assert.equal((await t.request('DELETE', `/api/v2/products/${created.body.id}`, admin)).status, 204);
      const events = await eventsAfter(t, cursor, 2);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id]),
        [
          ['product.deleted', created.body.id],
          ['product.purged', created.body.id],
        ],
      );
      const gone = await t.request('GET', `/api/v2/products/${created.body.id}?trashed=include`, admin);
      assert.equal(gone.status, 404);
    });
  });
}
