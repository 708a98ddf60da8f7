import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** The "done when": a blog-style thread written and read through REST alone, following links. */
for (const dialect of DIALECTS) {
  describe(`a REST thread: user → post → comments → likes (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('is written and read by following _links, and goes away with its author', async () => {
      const writer = await t.createUser({ name: 'Writer' });
      const reader = await t.createUser({ name: 'Reader' });
      const postsHref = (writer.user as { _links: { posts: { href: string } } })._links.posts.href;

      const post = await t.request('POST', postsHref, {
        token: writer.token,
        body: { title: 'On threads', content: 'Links all the way down.' },
      });
      assert.equal(post.status, 201);
      const listed = await t.request('GET', postsHref, { token: reader.token });
      assert.deepEqual(listed.body.data, [post.body]);

      const comment = await t.request('POST', post.body._links.comments.href, {
        token: reader.token,
        body: { text: 'Agreed.' },
      });
      assert.equal(comment.status, 201);
      const like = await t.request('POST', comment.body._links.likes.href, { token: writer.token });
      assert.equal(like.status, 201);

      const author = await t.request('GET', post.body._links.author.href, { token: reader.token });
      assert.equal(author.body.name, 'Writer');
      const comments = await t.request('GET', post.body._links.comments.href, { token: writer.token });
      assert.deepEqual(comments.body.data, [comment.body]);
      const likes = await t.request('GET', comments.body.data[0]._links.likes.href, { token: reader.token });
      assert.deepEqual(
        likes.body.data.map((l: { userId: number }) => l.userId),
        [writer.id],
      );
      const liker = await t.request('GET', likes.body.data[0]._links.user.href, { token: reader.token });
      assert.equal(liker.body.id, writer.id);
      const feed = await t.request('GET', '/api/posts', { token: reader.token });
      assert.equal(feed.body.data[0].id, post.body.id);

      // Deleting the writer takes their post, the comments on it and the likes with it, in one transaction.
      assert.equal((await t.request('DELETE', `/api/users/${writer.id}`, { token: writer.token })).status, 204);
      assert.equal((await t.request('GET', post.body._links.self.href, { token: reader.token })).status, 404);
      assert.equal((await t.request('GET', comment.body._links.self.href, { token: reader.token })).status, 404);
      const likeRows = await t.server.db
        .selectFrom('comment_likes')
        .selectAll()
        .where('user_id', '=', writer.id)
        .execute();
      assert.equal(likeRows.length, 0);
      assert.equal((await t.request('GET', '/api/posts', { token: reader.token })).body.data.length, 0);
    });

    it("deleting a commenter removes their comments and likes but not others' posts", async () => {
      const writer = await t.createUser();
      const commenter = await t.createUser();
      const post = (
        await t.request('POST', `/api/users/${writer.id}/posts`, {
          token: writer.token,
          body: { title: 'T', content: 'C' },
        })
      ).body;
      const mine = (
        await t.request('POST', `/api/posts/${post.id}/comments`, { token: writer.token, body: { text: 'mine' } })
      ).body;
      await t.request('POST', `/api/posts/${post.id}/comments`, { token: commenter.token, body: { text: 'theirs' } });
      await t.request('POST', `/api/comments/${mine.id}/likes`, { token: commenter.token });
      assert.equal((await t.request('DELETE', `/api/users/${commenter.id}`, { token: t.adminToken })).status, 204);
      const comments = await t.request('GET', `/api/posts/${post.id}/comments`, { token: writer.token });
      assert.deepEqual(
        comments.body.data.map((c: { id: number }) => c.id),
        [mine.id],
      );
      const likes = await t.request('GET', `/api/comments/${mine.id}/likes`, { token: writer.token });
      assert.equal(likes.body.pagination.total, 0);
    });
  });
}
