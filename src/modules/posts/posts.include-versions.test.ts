import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { seedBusyThreads } from '../../../test/support/posts.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PREFIXES = ['/api/v1', '/api/v2'] as const;

/**
 * DECISIONS §12's `include` on the LISTS of users, posts, comments and likes, under /api/v1 and
 * /api/v2 alike: an embedded list holds the first 20 (a post's comments oldest first, a user's posts
 * newest first), each embedded object is what its own read under that version shows (its own
 * `_links`), two levels at most, and an unknown or third-level relation is a 422 naming `include`.
 */
for (const dialect of DIALECTS) {
  describe(`include on lists, v1 and v2 (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };
    /** Alice's post with 25 comments (Bob's and Alice's, alternating), and their ids, oldest first. */
    let busyPost: number;
    let busyComments: number[];
    /** Bob's 22 posts, oldest first. */
    let bobPosts: number[];

    const get = async (path: string, token = alice.token) => {
      const res = await t.request('GET', path, { token });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Json;
    };
    const idsOf = (items: Json[]) => items.map((item) => item.id as number);

    before(async () => {
      t = await startTestServer(dialect, { REPORT_WORKER: 'false' });
      ({ alice, bob, busyPost, busyComments, bobPosts } = await seedBusyThreads(t));
    });
    after(() => t?.close());

    for (const prefix of PREFIXES) {
      it(`embeds a post's first 20 comments, oldest first, on the posts lists, each as its own read (${prefix})`, async () => {
        for (const path of [
          `${prefix}/posts?authorId=${alice.id}&include=comments`,
          `${prefix}/users/${alice.id}/posts?include=comments`,
        ]) {
          const [post] = (await get(path)).data as Json[];
          assert.equal(post!.id, busyPost, path);
          const embedded = post!._embedded.comments as Json[];
          assert.deepEqual(idsOf(embedded), busyComments.slice(0, 20), path);
          for (const comment of [embedded[0]!, embedded[19]!]) {
            assert.deepEqual(comment, await get(`${prefix}/posts/${busyPost}/comments/${comment.id}`), path);
            assert.deepEqual(comment._links.self, { href: `${prefix}/posts/${busyPost}/comments/${comment.id}` });
          }
        }
      });

      it(`embeds a user's first 20 posts, newest first, on the users list, each as its own read (${prefix})`, async () => {
        const list = await get(`${prefix}/users?id[in]=${alice.id},${bob.id}&include=posts`);
        const byId = new Map<number, Json>((list.data as Json[]).map((user) => [user.id, user]));
        const embedded = byId.get(bob.id)!._embedded.posts as Json[];
        assert.deepEqual(idsOf(embedded), bobPosts.toReversed().slice(0, 20));
        assert.deepEqual(idsOf(byId.get(alice.id)!._embedded.posts), [busyPost]);
        for (const post of [embedded[0]!, embedded[19]!]) {
          assert.deepEqual(post, await get(`${prefix}/posts/${post.id}`));
          assert.deepEqual(post._links.self, { href: `${prefix}/posts/${post.id}` });
          assert.deepEqual(post._links.author, { href: `${prefix}/users/${bob.id}` });
        }
      });

      it(`embeds two levels on lists: comments.author, posts.comments, post.author, user.posts (${prefix})`, async () => {
        const [post] = (await get(`${prefix}/users/${alice.id}/posts?include=comments.author`)).data as Json[];
        const comments = post!._embedded.comments as Json[];
        assert.equal(comments.length, 20);
        comments.forEach((comment, index) => {
          assert.equal(comment._embedded.author.id, index % 2 === 0 ? bob.id : alice.id);
          assert.deepEqual(comment._embedded.author._links.self, { href: `${prefix}/users/${comment.authorId}` });
          assert.equal(comment._embedded.author._embedded, undefined, 'nothing below what was asked');
        });
        const [user] = (await get(`${prefix}/users?id=${alice.id}&include=posts.comments`)).data as Json[];
        const [busy] = user!._embedded.posts as Json[];
        assert.deepEqual(idsOf(busy!._embedded.comments), busyComments.slice(0, 20));
        const onComments = await get(`${prefix}/posts/${busyPost}/comments?include=post.author&limit=3`);
        for (const comment of onComments.data as Json[]) {
          assert.deepEqual(comment._embedded.post._links.self, { href: `${prefix}/posts/${busyPost}` });
          assert.equal(comment._embedded.post._embedded.author.id, alice.id);
        }
        const likes = await get(`${prefix}/comments/${busyComments[0]}/likes?include=user.posts`);
        const [like] = likes.data as Json[];
        assert.deepEqual(like!._embedded.user._links.self, { href: `${prefix}/users/${bob.id}` });
        assert.deepEqual(idsOf(like!._embedded.user._embedded.posts), bobPosts.toReversed().slice(0, 20));
      });

      it(`refuses an unknown relation and a third level on every list with 422 naming include (${prefix})`, async () => {
        const cases = [
          `${prefix}/posts?include=likes`,
          `${prefix}/posts?include=comments.author.posts`,
          `${prefix}/users?include=comments`,
          `${prefix}/users?include=posts.comments.author`,
          `${prefix}/users/${bob.id}/posts?include=editor`,
          `${prefix}/users/${bob.id}/posts?include=author.posts.author`,
          `${prefix}/posts/${busyPost}/comments?include=likes`,
          `${prefix}/posts/${busyPost}/comments?include=post.author.posts`,
          `${prefix}/comments/${busyComments[0]}/likes?include=comment`,
          `${prefix}/comments/${busyComments[0]}/likes?include=user.posts.comments`,
        ];
        for (const path of cases) {
          const res = await t.request('GET', path, { token: alice.token });
          assert.equal(res.status, 422, `${path}: ${res.text}`);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR', path);
          assert.deepEqual(
            res.body.error.details.map((d: Json) => d.field),
            ['include'],
            path,
          );
        }
      });
    }
  });
}
