import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { listCommentsOfPosts } from './comments.repository.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { CommentsService } from './comments.service.ts';

/** The batch loaders GraphQL builds on. */
for (const dialect of DIALECTS) {
  describe(`comments service (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let comments: CommentsService;
    const byPost = new Map<number, number[]>();

    before(async () => {
      t = await startTestServer(dialect);
      comments = t.server.app.services.comments;
      const user = await t.createUser();
      const actor = { userId: user.id, role: 'user' as const };
      for (let p = 0; p < 3; p += 1) {
        const post = await t.server.app.services.posts.createPost(actor, {
          title: `P${p}`,
          content: 'c',
          authorId: user.id,
        });
        byPost.set(post.id, []);
        for (let c = 0; c < p * 2; c += 1)
          byPost.get(post.id)!.push((await comments.createComment(actor, post.id, { text: `c${c}` })).id);
      }
    });
    after(() => t?.close());

    it('findCommentsByPostIds returns each post its comments oldest first, cut by limit and offset, in one query', async () => {
      const postIds = [...byPost.keys()];
      // Its own statements only: the report worker polls the same database meanwhile.
      const { result: page, statements } = await statementsOf(t.server.db, () =>
        comments.findCommentsByPostIds([...postIds, postIds[0]!, 999999], { limit: 2, offset: 1 }),
      );
      assert.equal(statements.length, 1, statements.join('\n'));
      for (const [postId, ids] of byPost)
        assert.deepEqual(
          page.get(postId)!.map((c) => c.id),
          ids.slice(1, 3),
        );
      assert.deepEqual(page.get(999999), []);
      const all = await comments.findCommentsByPostIds(postIds);
      for (const [postId, ids] of byPost)
        assert.deepEqual(
          all.get(postId)!.map((c) => c.id),
          ids,
        );
    });

    it('gives each window, column list and number of posts its own rows when they alternate (statements built once per shape)', async () => {
      const postIds = [...byPost.keys()].sort((a, b) => a - b);
      // Ordered by post, then oldest first within each post.
      const expected = (posts: number[], limit: number, offset: number) =>
        posts.flatMap((postId) => byPost.get(postId)!.slice(offset, offset + limit));
      const keys = (rows: object[]) => [...new Set(rows.map((row) => Object.keys(row).sort().join()))];
      for (let round = 0; round < 2; round += 1) {
        const first = await listCommentsOfPosts(t.server.db, postIds, { limit: 2, offset: 0 }, ['text']);
        assert.deepEqual(
          first.map((c) => c.id),
          expected(postIds, 2, 0),
        );
        assert.deepEqual(keys(first), ['id,post_id,text']);
        const later = await listCommentsOfPosts(t.server.db, postIds, { limit: 3, offset: 2 }, ['author_id']);
        assert.deepEqual(
          later.map((c) => c.id),
          expected(postIds, 3, 2),
        );
        assert.deepEqual(keys(later), ['author_id,id,post_id']);
        const fewer = await listCommentsOfPosts(t.server.db, postIds.slice(1), { limit: 2, offset: 0 }, ['text']);
        assert.deepEqual(
          fewer.map((c) => c.id),
          expected(postIds.slice(1), 2, 0),
        );
      }
    });
  });
}
