import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { seedBusyThreads } from '../../../test/support/posts.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * `include` and `_embedded` on the reads and lists of users, posts, comments and likes (DECISIONS §12):
 * each relation, two levels, the 20 cap and its order, e-mail privacy inside `_embedded`, the 422s,
 * and a list's statements independent of its size.
 */
for (const dialect of DIALECTS) {
  describe(`include and _embedded: users, posts, comments, likes (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string; user: Json };
    let bob: { id: number; token: string; user: Json };
    /** Alice's post with 25 comments (Bob's and Alice's, alternating), and its comments' ids, oldest first. */
    let busyPost: number;
    let busyComments: number[];
    /** Bob's 22 posts, oldest first. */
    let bobPosts: number[];
    /** 50 more posts by four others, with two comments each, for the statement count. */
    const crowd: number[] = [];

    const get = async (path: string, token = alice.token) => {
      const res = await t.request('GET', path, { token });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Json;
    };

    before(async () => {
      t = await startTestServer(dialect, { REPORT_WORKER: 'false' });
      ({ alice, bob, busyPost, busyComments, bobPosts } = await seedBusyThreads(t));
      const { posts, comments } = t.server.app.services;
      const as = (user: { id: number }) => ({ userId: user.id, role: 'user' as const });
      const authors = [await t.createUser(), await t.createUser(), await t.createUser(), await t.createUser()];
      for (let i = 0; i < 50; i += 1) {
        const author = authors[i % authors.length]!;
        const post = (await posts.createPost(as(author), { title: `Crowd ${i}`, content: 'c', authorId: author.id }))
          .id;
        crowd.push(post);
        for (let j = 0; j < 2; j += 1) await comments.createComment(as(authors[(i + j + 1) % 4]!), post, { text: 'x' });
      }
    });
    after(() => t?.close());

    it("embeds a post's author and its first 20 comments, oldest first, each with its own links", async () => {
      for (const prefix of ['/api/v1', '/api/v2']) {
        const post = await get(`${prefix}/posts/${busyPost}?include=author,comments`);
        assert.equal(post._embedded.author.id, alice.id);
        assert.equal(post._embedded.author.name, 'Alice');
        assert.deepEqual(post._embedded.author._links.self, { href: `${prefix}/users/${alice.id}` });
        const embedded = post._embedded.comments as Json[];
        assert.deepEqual(
          embedded.map((comment) => comment.id),
          busyComments.slice(0, 20),
        );
        assert.deepEqual(embedded[0]!._links.self, { href: `${prefix}/posts/${busyPost}/comments/${busyComments[0]}` });
        assert.equal(embedded[0]!._embedded, undefined, 'nothing below what was asked');
      }
    });

    it('embeds nothing without include, and only what include names', async () => {
      assert.equal((await get(`/api/posts/${busyPost}`))._embedded, undefined);
      const post = await get(`/api/posts/${busyPost}?include=author`);
      assert.deepEqual(Object.keys(post._embedded), ['author']);
    });

    it("embeds two levels: a post's comments with their authors, its author with their posts", async () => {
      const post = await get(`/api/posts/${busyPost}?include=comments.author,author.posts`);
      const comments = post._embedded.comments as Json[];
      assert.equal(comments.length, 20);
      comments.forEach((comment, index) => {
        assert.equal(comment._embedded.author.id, index % 2 === 0 ? bob.id : alice.id);
        assert.equal(comment._embedded.author._embedded, undefined);
      });
      assert.deepEqual(
        (post._embedded.author._embedded.posts as Json[]).map((p) => p.id),
        [busyPost],
      );
    });

    it("embeds a user's first 20 posts, newest first, on a read and on the list", async () => {
      const user = await get(`/api/users/${bob.id}?include=posts`);
      assert.deepEqual(
        (user._embedded.posts as Json[]).map((p) => p.id),
        bobPosts.toReversed().slice(0, 20),
      );
      assert.deepEqual(user._embedded.posts[0]._links.author, { href: `/api/users/${bob.id}` });
      const list = await get(`/api/users?id[in]=${alice.id},${bob.id}&include=posts.comments&fields=name`);
      const byId = new Map<number, Json>((list.data as Json[]).map((u) => [u.id, u]));
      assert.equal(byId.get(bob.id)!._embedded.posts.length, 20);
      const alicesBusy = (byId.get(alice.id)!._embedded.posts as Json[]).find((p) => p.id === busyPost)!;
      assert.equal(alicesBusy._embedded.comments.length, 20);
    });

    it("embeds a comment's author and post, on the list and on a read", async () => {
      const list = await get(`/api/posts/${busyPost}/comments?include=author,post&limit=3`);
      assert.deepEqual(
        (list.data as Json[]).map((c) => [c._embedded.author.id, c._embedded.post.id]),
        [
          [bob.id, busyPost],
          [alice.id, busyPost],
          [bob.id, busyPost],
        ],
      );
      const one = await get(`/api/posts/${busyPost}/comments/${busyComments[1]}?include=post.author`);
      assert.equal(one._embedded.post._embedded.author.id, alice.id);
    });

    it("embeds a like's user, on the list and on a read", async () => {
      const list = await get(`/api/comments/${busyComments[0]}/likes?include=user`);
      assert.deepEqual(
        (list.data as Json[]).map((like) => like._embedded.user.id),
        [bob.id],
      );
      const one = await get(`/api/comments/${busyComments[0]}/likes/${bob.id}?include=user.posts`);
      assert.equal(one._embedded.user._embedded.posts.length, 20);
    });

    it('embeds the cursor list of posts and a user’s posts list', async () => {
      const feed = await get(`/api/posts?limit=2&include=author`);
      assert.ok((feed.data as Json[]).every((post) => post._embedded.author.id === post.authorId));
      const page = await get(`/api/users/${bob.id}/posts?limit=3&include=comments`);
      assert.deepEqual(
        (page.data as Json[]).map((post) => post._embedded.comments),
        [[], [], []],
      );
    });

    it('keeps include out of a cursor: the next page may embed more, less or nothing', async () => {
      const first = await get(`/api/users/${bob.id}/posts?limit=5&include=comments`);
      const cursor = (first.pagination as Json).nextCursor as string;
      const plain = await get(`/api/users/${bob.id}/posts?limit=5&cursor=${cursor}`);
      const embedded = await get(`/api/users/${bob.id}/posts?limit=5&include=author&cursor=${cursor}`);
      const ids = (page: Json) => (page.data as Json[]).map((post) => post.id);
      assert.deepEqual(ids(embedded), ids(plain));
      assert.deepEqual(ids(plain), [...bobPosts].reverse().slice(5, 10));
      assert.ok((embedded.data as Json[]).every((post) => post._embedded.author.id === bob.id));
    });
    it("shows an embedded user's email only to that user and to admins, as a direct read does", async () => {
      const path = `/api/posts/${busyPost}?include=author,comments.author`;
      const emailsIn = (post: Json) => [
        post._embedded.author.email,
        ...new Set((post._embedded.comments as Json[]).map((c) => c._embedded.author.email)),
      ];
      // Bob reads Alice's post: Alice's address hidden, his own shown.
      assert.deepEqual(emailsIn(await get(path, bob.token)), [null, bob.user.email, null]);
      assert.deepEqual(emailsIn(await get(path, alice.token)), [alice.user.email, null, alice.user.email]);
      assert.deepEqual(emailsIn(await get(path, t.adminToken)), [alice.user.email, bob.user.email, alice.user.email]);
      const direct = await get(`/api/users/${alice.id}`, bob.token);
      assert.equal(direct.email, null);
      const liked = await get(`/api/comments/${busyComments[0]}/likes?include=user`, alice.token);
      assert.equal(liked.data[0]._embedded.user.email, null);
    });

    it('refuses an unknown relation, a third level and a malformed list with 422 naming include', async () => {
      const cases = [
        `/api/posts/${busyPost}?include=editor`,
        `/api/posts/${busyPost}?include=comments.author.posts`,
        `/api/posts/${busyPost}?include=comments.`,
        `/api/posts/${busyPost}?include=author,,comments`,
        `/api/posts?include=likes`,
        `/api/users?include=comments`,
        `/api/users/${bob.id}?include=posts.likes`,
        `/api/posts/${busyPost}/comments?include=post.author.posts`,
        `/api/comments/${busyComments[0]}/likes?include=comment`,
        `/api/v1/users/${bob.id}/posts?include=author.posts.author`,
      ];
      for (const path of cases) {
        const res = await t.request('GET', path, { token: alice.token });
        assert.equal(res.status, 422, `${path}: ${res.text}`);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        assert.deepEqual(
          res.body.error.details.map((d: Json) => d.field),
          ['include'],
          path,
        );
      }
      const deep = await t.request('GET', `/api/posts/${busyPost}?include=comments.author.posts`, {
        token: alice.token,
      });
      assert.match(deep.body.error.details[0].message, /3 levels deep; at most 2/);
    });

    it('documents on every read and list the include paths the service embeds, and _embedded in the answers', async () => {
      const document = (await t.request('GET', '/api/v2/openapi.json')).body as Json;
      const { embedding } = t.server.app.services;
      const routes: [string, string][] = [
        ['/users', 'user'],
        ['/users/{userId}', 'user'],
        ['/posts', 'post'],
        ['/posts/{postId}', 'post'],
        ['/users/{userId}/posts', 'post'],
        ['/users/{userId}/posts/{postId}', 'post'],
        ['/posts/{postId}/comments', 'comment'],
        ['/posts/{postId}/comments/{commentId}', 'comment'],
        ['/comments/{commentId}/likes', 'like'],
        ['/comments/{commentId}/likes/{userId}', 'like'],
        ['/orders', 'order'],
        ['/orders/{orderId}', 'order'],
      ];
      for (const [path, kind] of routes) {
        const include = (document.paths[path].get.parameters as Json[]).find((p) => p.name === 'include');
        assert.ok(include, path);
        const listed = /a comma list of: (.*?)\. At most/.exec(include.description)![1]!.split(', ');
        assert.deepEqual(listed.toSorted(), embedding.paths(kind).toSorted(), path);
      }
      for (const schema of ['User', 'Post', 'Comment', 'Like', 'Order', 'OrderItem'])
        assert.ok(document.components.schemas[schema].properties._embedded, schema);
    });

    it('runs as many statements for a list of 5 as for a list of 50 with include=comments.author', async () => {
      const count = async (limit: number) => {
        const { result, statements } = await statementsOf(t.server.db, () =>
          t.request('GET', `/api/posts?limit=${limit}&include=author,comments.author`, { token: alice.token }),
        );
        assert.equal(result.status, 200);
        assert.equal(result.body.data.length, limit);
        assert.ok(
          (result.body.data as Json[]).every((post) =>
            (post._embedded.comments as Json[]).every((c) => c._embedded.author.id === c.authorId),
          ),
        );
        return statements;
      };
      const five = await count(5);
      const fifty = await count(50);
      // The page, the authors, the comments, the comments' authors.
      assert.equal(five.length, 4, five.join('\n'));
      assert.equal(fifty.length, five.length, fifty.join('\n'));
    });
  });
}
