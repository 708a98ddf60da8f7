import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

for (const dialect of DIALECTS) {
  describe(`posts REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    const createPost = (
      userId: number,
      token: string,
      body: Record<string, unknown> = { title: 'A title', content: 'Some content' },
    ) => t.request('POST', `/api/users/${userId}/posts`, { token, body });

    describe('POST /api/users/{id}/posts', () => {
      it('creates a post for the caller with 201, Location and links', async () => {
        const { id, token } = await t.createUser();
        const res = await createPost(id, token, { title: 'Hello', content: 'World' });
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('location'), `/api/posts/${res.body.id}`);
        assert.equal(res.body.title, 'Hello');
        assert.equal(res.body.content, 'World');
        assert.equal(res.body.authorId, id);
        assert.match(res.body.createdAt, ISO);
        assert.equal(res.body.updatedAt, res.body.createdAt);
        assert.deepEqual(res.body._links, {
          self: { href: `/api/posts/${res.body.id}` },
          author: { href: `/api/users/${id}` },
          comments: { href: `/api/posts/${res.body.id}/comments` },
        });
        const read = await t.request('GET', res.headers.get('location')!, { token });
        assert.deepEqual(read.body, res.body);
      });

      it('lets an admin post for another user, and refuses other users with 403 and nothing written', async () => {
        const alice = await t.createUser();
        const bob = await t.createUser();
        const asAdmin = await createPost(alice.id, t.adminToken);
        assert.equal(asAdmin.status, 201);
        assert.equal(asAdmin.body.authorId, alice.id);
        const asBob = await createPost(alice.id, bob.token, { title: 'Forged', content: 'x' });
        assert.equal(asBob.status, 403);
        assert.equal(asBob.body.error.code, 'FORBIDDEN');
        const rows = await t.server.db.selectFrom('posts').select('id').where('title', '=', 'Forged').execute();
        assert.equal(rows.length, 0);
      });

      it('answers 401 without a token', async () => {
        const { id } = await t.createUser();
        const res = await t.request('POST', `/api/users/${id}/posts`, { body: { title: 't', content: 'c' } });
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
      });

      it('answers 404 when the user does not exist or the id is not a positive integer', async () => {
        for (const id of ['999999', 'abc', '0', '-2', '1.5']) {
          const res = await t.request('POST', `/api/users/${id}/posts`, {
            token: t.adminToken,
            body: { title: 't', content: 'c' },
          });
          assert.equal(res.status, 404, id);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        }
      });

      it('answers 422 naming the field for missing, blank, over-long, unknown and read-only fields', async () => {
        const { id, token } = await t.createUser();
        const cases: [Record<string, unknown>, string][] = [
          [{ content: 'c' }, 'title'],
          [{ title: 't' }, 'content'],
          [{ title: '', content: 'c' }, 'title'],
          [{ title: '   ', content: 'c' }, 'title'],
          [{ title: 't', content: ' \n\t ' }, 'content'],
          [{ title: 'x'.repeat(201), content: 'c' }, 'title'],
          [{ title: 't', content: 'x'.repeat(100_001) }, 'content'],
          [{ title: 7, content: 'c' }, 'title'],
          [{ title: 't', content: 'c', tags: ['a'] }, 'tags'],
          [{ title: 't', content: 'c', authorId: id }, 'authorId'],
          [{ title: 't', content: 'c', id: 5 }, 'id'],
          [{ title: 't', content: 'c', createdAt: '2020-01-01T00:00:00.000Z' }, 'createdAt'],
        ];
        for (const [body, field] of cases) {
          const res = await createPost(id, token, body);
          assert.equal(res.status, 422, JSON.stringify(body).slice(0, 80));
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            res.body.error.details.some((d: { field: string }) => d.field === field),
            `${field}: ${JSON.stringify(res.body.error.details)}`,
          );
        }
        const posts = await t.request('GET', `/api/users/${id}/posts`, { token });
        assert.equal(posts.body.pagination.total, 0, 'nothing was written');
      });

      it('accepts the longest title and content allowed', async () => {
        const { id, token } = await t.createUser();
        const res = await createPost(id, token, { title: 'x'.repeat(200), content: 'y'.repeat(100_000) });
        assert.equal(res.status, 201);
        assert.equal(res.body.content.length, 100_000);
      });

      it('answers 400 for malformed JSON and 415 for a non-JSON body', async () => {
        const { id, token } = await t.createUser();
        const malformed = await t.request('POST', `/api/users/${id}/posts`, {
          token,
          raw: '{"title":',
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(malformed.status, 400);
        const text = await t.request('POST', `/api/users/${id}/posts`, {
          token,
          raw: 'title=x',
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(text.status, 415);
      });
    });

    describe('GET /api/posts/{id} and /api/users/{id}/posts/{id}', () => {
      it('reads a post by id and through its author, with ETag and 304', async () => {
        const { id, token } = await t.createUser();
        const post = (await createPost(id, token)).body;
        const reader = await t.createUser();
        const direct = await t.request('GET', `/api/posts/${post.id}`, { token: reader.token });
        assert.equal(direct.status, 200);
        assert.deepEqual(direct.body, post);
        const nested = await t.request('GET', `/api/users/${id}/posts/${post.id}`, { token: reader.token });
        assert.equal(nested.status, 200);
        assert.deepEqual(nested.body, post);
        const etag = direct.headers.get('etag');
        assert.match(etag ?? '', /^"[^"]+"$/);
        assert.equal(direct.headers.get('cache-control'), 'private, no-cache');
        const cached = await t.request('GET', `/api/posts/${post.id}`, {
          token: reader.token,
          headers: { 'if-none-match': etag! },
        });
        assert.equal(cached.status, 304);
        assert.equal(cached.text, '');
        const stale = await t.request('GET', `/api/posts/${post.id}`, {
          token: reader.token,
          headers: { 'if-none-match': '"old"' },
        });
        assert.equal(stale.status, 200);
      });

      it("answers 404 when the post is not that user's, unknown, or not a positive integer", async () => {
        const alice = await t.createUser();
        const bob = await t.createUser();
        const post = (await createPost(alice.id, alice.token)).body;
        const wrongUser = await t.request('GET', `/api/users/${bob.id}/posts/${post.id}`, { token: bob.token });
        assert.equal(wrongUser.status, 404);
        assert.equal(wrongUser.body.error.code, 'NOT_FOUND');
        for (const path of [
          '/api/posts/999999',
          '/api/posts/abc',
          '/api/posts/0',
          `/api/users/${alice.id}/posts/x`,
          `/api/users/999999/posts/${post.id}`,
        ]) {
          const res = await t.request('GET', path, { token: alice.token });
          assert.equal(res.status, 404, path);
        }
      });

      it('answers 401 without a token', async () => {
        const { id, token } = await t.createUser();
        const post = (await createPost(id, token)).body;
        assert.equal((await t.request('GET', `/api/posts/${post.id}`)).status, 401);
        assert.equal((await t.request('GET', `/api/users/${id}/posts/${post.id}`)).status, 401);
        assert.equal((await t.request('GET', `/api/users/${id}/posts`)).status, 401);
        assert.equal((await t.request('GET', '/api/posts')).status, 401);
      });
    });

    describe('versioned prefixes', () => {
      it('serve the same posts and comments with links and Location under the prefix the request used', async () => {
        const { id, token } = await t.createUser();
        const created = await t.request('POST', `/api/v2/users/${id}/posts`, {
          token,
          body: { title: 'V2', content: 'c' },
        });
        assert.equal(created.status, 201);
        assert.equal(created.headers.get('location'), `/api/v2/posts/${created.body.id}`);
        assert.deepEqual(created.body._links.author, { href: `/api/v2/users/${id}` });
        const v1 = await t.request('GET', `/api/v1/posts/${created.body.id}`, { token });
        assert.equal(v1.body._links.self.href, `/api/v1/posts/${created.body.id}`);
        const comment = await t.request('POST', `/api/v2/posts/${created.body.id}/comments`, {
          token,
          body: { text: 'x' },
        });
        assert.equal(comment.body._links.self.href, `/api/v2/posts/${created.body.id}/comments/${comment.body.id}`);
        const feed = await t.request('GET', '/api/v2/posts?limit=1', { token });
        assert.equal(feed.body.data[0]._links.self.href, `/api/v2/posts/${created.body.id}`);
      });
    });

    describe('GET /api/users/{id}/posts', () => {
      it("pages the user's posts newest first with the page envelope (default 20)", async () => {
        const { id, token } = await t.createUser();
        const other = await t.createUser();
        await createPost(other.id, other.token);
        const ids: number[] = [];
        for (let i = 0; i < 23; i += 1)
          ids.push((await createPost(id, token, { title: `Post ${i}`, content: 'c' })).body.id);
        const first = await t.request('GET', `/api/users/${id}/posts`, { token: other.token });
        assert.equal(first.status, 200);
        assert.deepEqual(first.body.pagination, {
          page: 1,
          limit: 20,
          total: 23,
          totalPages: 2,
          hasNext: true,
          hasPrev: false,
          nextCursor: first.body.pagination.nextCursor,
        });
        assert.equal(typeof first.body.pagination.nextCursor, 'string');
        assert.deepEqual(
          first.body.data.map((p: { id: number }) => p.id),
          ids.toReversed().slice(0, 20),
        );
        assert.ok(first.body.data.every((p: { authorId: number }) => p.authorId === id));
        const second = await t.request('GET', `/api/users/${id}/posts?page=2`, { token });
        assert.deepEqual(
          second.body.data.map((p: { id: number }) => p.id),
          ids.toReversed().slice(20),
        );
        assert.equal(second.body.pagination.hasNext, false);
        assert.equal(second.body.pagination.hasPrev, true);
      });

      it('caps limit at 100, raises limit and page below 1, and rejects non-numbers with 422', async () => {
        const { id, token } = await t.createUser();
        await createPost(id, token);
        await createPost(id, token);
        assert.equal(
          (await t.request('GET', `/api/users/${id}/posts?limit=500`, { token })).body.pagination.limit,
          100,
        );
        const one = await t.request('GET', `/api/users/${id}/posts?limit=0&page=-3`, { token });
        assert.equal(one.body.pagination.limit, 1);
        assert.equal(one.body.pagination.page, 1);
        assert.equal(one.body.data.length, 1);
        for (const query of ['limit=ten', 'page=x', 'limit=2.5']) {
          const res = await t.request('GET', `/api/users/${id}/posts?${query}`, { token });
          assert.equal(res.status, 422, query);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        }
      });

      it('answers 404 for an unknown user and an empty page for a user without posts', async () => {
        const { id, token } = await t.createUser();
        assert.equal((await t.request('GET', '/api/users/999999/posts', { token })).status, 404);
        const empty = await t.request('GET', `/api/users/${id}/posts`, { token });
        assert.equal(empty.status, 200);
        assert.deepEqual(empty.body.data, []);
        assert.equal(empty.body.pagination.total, 0);
      });
    });
  });
}
