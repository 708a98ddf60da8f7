import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** `GET /comments` (DECISIONS §20): every comment, newest first, by cursor, with `postId`, `authorId`, `createdAt`. */
for (const dialect of DIALECTS) {
  describe(`GET /comments, every comment (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };
    const posts: number[] = [];
    const ids: number[] = [];
    before(async () => {
      t = await startTestServer(dialect);
      alice = await t.createUser();
      bob = await t.createUser();
      for (const author of [alice, bob]) {
        const post = await t.request('POST', `/api/v2/users/${author.id}/posts`, {
          token: author.token,
          body: { title: `By ${author.id}`, content: 'text' },
        });
        posts.push(post.body.id);
      }
      for (let i = 0; i < 5; i++) {
        const author = i % 2 ? bob : alice;
        const res = await t.request('POST', `/api/v2/posts/${posts[i % 2]}/comments`, {
          token: author.token,
          body: { text: `comment ${i}` },
        });
        assert.equal(res.status, 201);
        ids.push(res.body.id);
      }
    });
    after(() => t?.close());

    it('lists every post’s comments newest first and pages them by cursor', async () => {
      const first = await t.request('GET', '/api/v2/comments?limit=2&count=none', { token: bob.token });
      assert.equal(first.status, 200);
      assert.deepEqual(
        first.body.data.map((comment: { id: number }) => comment.id),
        ids.slice(-2).reverse(),
      );
      assert.equal(first.body.data[0]._links.self.href.startsWith('/api/v2/'), true);
      const seen = [...first.body.data];
      let cursor = first.body.pagination.nextCursor as string | null;
      while (cursor) {
        const next = await t.request('GET', `/api/v2/comments?limit=2&count=none&cursor=${cursor}`, {
          token: bob.token,
        });
        assert.equal(next.status, 200);
        seen.push(...next.body.data);
        cursor = next.body.pagination.nextCursor;
      }
      assert.deepEqual(
        seen.map((comment: { id: number }) => comment.id),
        [...ids].reverse(),
      );
    });

    it('filters by postId and authorId, and refuses an unknown filter or parameter with a 422', async () => {
      const onFirst = await t.request('GET', `/api/v2/comments?postId=${posts[0]}`, { token: alice.token });
      assert.deepEqual(
        onFirst.body.data.map((comment: { postId: number }) => comment.postId),
        [posts[0], posts[0], posts[0]],
      );
      const byBob = await t.request('GET', `/api/v2/comments?authorId=${bob.id}&sort=id`, { token: alice.token });
      assert.deepEqual(
        byBob.body.data.map((comment: { id: number }) => comment.id),
        [ids[1], ids[3]],
      );
      assert.equal(byBob.body.pagination.total, 2);
      const bad = await t.request('GET', '/api/v2/comments?text=x', { token: alice.token });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error.code, 'VALIDATION_ERROR');
      const badOp = await t.request('GET', '/api/v2/comments?postId[contains]=1', { token: alice.token });
      assert.equal(badOp.status, 422);
    });

    it('needs a signed-in reader', async () => {
      const res = await t.request('GET', '/api/v2/comments');
      assert.equal(res.status, 401);
    });
  });
}
