import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface Actor {
  id: number;
  token: string;
}

for (const dialect of DIALECTS) {
  describe(`comments REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: Actor;
    let reader: Actor;

    before(async () => {
      t = await startTestServer(dialect);
      author = await t.createUser();
      reader = await t.createUser();
    });
    after(() => t?.close());

    const newPost = async (owner: Actor = author) =>
      (
        await t.request('POST', `/api/users/${owner.id}/posts`, {
          token: owner.token,
          body: { title: 'T', content: 'C' },
        })
      ).body.id as number;
    const comment = (postId: number, who: Actor, text = 'Nice post') =>
      t.request('POST', `/api/posts/${postId}/comments`, { token: who.token, body: { text } });

    describe('POST /api/posts/{id}/comments', () => {
      it('adds a comment by the caller with 201, Location and links', async () => {
        const postId = await newPost();
        const res = await comment(postId, reader, 'First!');
        assert.equal(res.status, 201);
        const id = res.body.id;
        assert.equal(res.headers.get('location'), `/api/posts/${postId}/comments/${id}`);
        assert.deepEqual(
          { postId: res.body.postId, authorId: res.body.authorId, text: res.body.text },
          { postId, authorId: reader.id, text: 'First!' },
        );
        assert.match(res.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.deepEqual(res.body._links, {
          self: { href: `/api/posts/${postId}/comments/${id}` },
          post: { href: `/api/posts/${postId}` },
          author: { href: `/api/users/${reader.id}` },
          likes: { href: `/api/comments/${id}/likes` },
        });
        const read = await t.request('GET', res.headers.get('location')!, { token: author.token });
        assert.equal(read.status, 200);
        assert.deepEqual(read.body, res.body);
      });

      it('answers 422 naming the field for missing, blank, over-long, unknown and read-only fields; nothing is written', async () => {
        const postId = await newPost();
        const cases: [unknown, string][] = [
          [{}, 'text'],
          [{ text: '' }, 'text'],
          [{ text: '  \n ' }, 'text'],
          [{ text: 'x'.repeat(10_001) }, 'text'],
          [{ text: 5 }, 'text'],
          [{ text: 'ok', mood: 'happy' }, 'mood'],
          [{ text: 'ok', authorId: author.id }, 'authorId'],
          [{ text: 'ok', postId: 1 }, 'postId'],
        ];
        for (const [body, field] of cases) {
          const res = await t.request('POST', `/api/posts/${postId}/comments`, { token: reader.token, body });
          assert.equal(res.status, 422, JSON.stringify(body).slice(0, 60));
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            res.body.error.details.some((d: { field: string }) => d.field === field),
            JSON.stringify(res.body.error.details),
          );
        }
        const longest = await comment(postId, reader, 'y'.repeat(10_000));
        assert.equal(longest.status, 201);
        const list = await t.request('GET', `/api/posts/${postId}/comments`, { token: reader.token });
        assert.equal(list.body.pagination.total, 1);
      });

      it('answers 404 for an unknown or non-integer post and 401 without a token', async () => {
        for (const id of ['999999', 'abc', '0']) {
          const res = await t.request('POST', `/api/posts/${id}/comments`, {
            token: reader.token,
            body: { text: 'x' },
          });
          assert.equal(res.status, 404, id);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        }
        const postId = await newPost();
        const anonymous = await t.request('POST', `/api/posts/${postId}/comments`, { body: { text: 'x' } });
        assert.equal(anonymous.status, 401);
      });
    });

    describe('GET /api/posts/{id}/comments', () => {
      it('pages comments oldest first with the page envelope (default 20, at most 100)', async () => {
        const postId = await newPost();
        const other = await newPost();
        await comment(other, reader, 'elsewhere');
        const ids: number[] = [];
        for (let i = 0; i < 22; i += 1) ids.push((await comment(postId, i % 2 ? author : reader, `c${i}`)).body.id);
        const first = await t.request('GET', `/api/posts/${postId}/comments`, { token: reader.token });
        assert.equal(first.status, 200);
        assert.deepEqual(first.body.pagination, {
          page: 1,
          limit: 20,
          total: 22,
          totalPages: 2,
          hasNext: true,
          hasPrev: false,
          nextCursor: first.body.pagination.nextCursor,
        });
        assert.equal(typeof first.body.pagination.nextCursor, 'string');
        assert.deepEqual(
          first.body.data.map((c: { id: number }) => c.id),
          ids.slice(0, 20),
        );
        const second = await t.request('GET', `/api/posts/${postId}/comments?page=2`, { token: reader.token });
        assert.deepEqual(
          second.body.data.map((c: { id: number }) => c.id),
          ids.slice(20),
        );
        const capped = await t.request('GET', `/api/posts/${postId}/comments?limit=101`, { token: reader.token });
        assert.equal(capped.body.pagination.limit, 100);
        const one = await t.request('GET', `/api/posts/${postId}/comments?limit=0`, { token: reader.token });
        assert.equal(one.body.data.length, 1);
        assert.equal(
          (await t.request('GET', `/api/posts/${postId}/comments?page=two`, { token: reader.token })).status,
          422,
        );
      });

      it('answers 404 for an unknown post, 401 without a token, and 304 for an unchanged list', async () => {
        assert.equal((await t.request('GET', '/api/posts/999999/comments', { token: reader.token })).status, 404);
        const postId = await newPost();
        assert.equal((await t.request('GET', `/api/posts/${postId}/comments`)).status, 401);
        const res = await t.request('GET', `/api/posts/${postId}/comments`, { token: reader.token });
        assert.deepEqual(res.body.data, []);
        const cached = await t.request('GET', `/api/posts/${postId}/comments`, {
          token: reader.token,
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        assert.equal(cached.status, 304);
        await comment(postId, reader);
        const changed = await t.request('GET', `/api/posts/${postId}/comments`, {
          token: reader.token,
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        assert.equal(changed.status, 200);
      });

      it('reads one comment only under its own post', async () => {
        const postId = await newPost();
        const other = await newPost();
        const id = (await comment(postId, reader)).body.id;
        assert.equal(
          (await t.request('GET', `/api/posts/${other}/comments/${id}`, { token: reader.token })).status,
          404,
        );
        assert.equal(
          (await t.request('GET', `/api/posts/${postId}/comments/999999`, { token: reader.token })).status,
          404,
        );
        assert.equal((await t.request('GET', `/api/posts/${postId}/comments/x`, { token: reader.token })).status, 404);
      });
    });

    describe('DELETE /api/posts/{id}/comments/{id}', () => {
      it("lets the comment's author, the post's author and an admin delete (204), and refuses anyone else (403)", async () => {
        const commenter = await t.createUser();
        const stranger = await t.createUser();
        const postId = await newPost(author);
        for (const who of [commenter, author, { id: 1, token: t.adminToken }]) {
          const id = (await comment(postId, commenter)).body.id;
          const denied = await t.request('DELETE', `/api/posts/${postId}/comments/${id}`, { token: stranger.token });
          assert.equal(denied.status, 403);
          assert.equal(denied.body.error.code, 'FORBIDDEN');
          assert.equal(
            (await t.request('GET', `/api/posts/${postId}/comments/${id}`, { token: stranger.token })).status,
            200,
            'still there',
          );
          const res = await t.request('DELETE', `/api/posts/${postId}/comments/${id}`, { token: who.token });
          assert.equal(res.status, 204);
          assert.equal(res.text, '');
          assert.equal(
            (await t.request('GET', `/api/posts/${postId}/comments/${id}`, { token: stranger.token })).status,
            404,
          );
          const again = await t.request('DELETE', `/api/posts/${postId}/comments/${id}`, { token: who.token });
          assert.equal(again.status, 404);
        }
      });

      it('answers 404 when the comment is on another post, unknown or not an integer, and 401 without a token', async () => {
        const postId = await newPost();
        const other = await newPost();
        const id = (await comment(postId, reader)).body.id;
        const wrongPost = await t.request('DELETE', `/api/posts/${other}/comments/${id}`, { token: t.adminToken });
        assert.equal(wrongPost.status, 404);
        assert.equal(wrongPost.body.error.code, 'NOT_FOUND');
        for (const path of [
          `/api/posts/${postId}/comments/999999`,
          `/api/posts/${postId}/comments/abc`,
          `/api/posts/x/comments/${id}`,
        ]) {
          assert.equal((await t.request('DELETE', path, { token: t.adminToken })).status, 404, path);
        }
        assert.equal((await t.request('DELETE', `/api/posts/${postId}/comments/${id}`)).status, 401);
        assert.equal(
          (await t.request('GET', `/api/posts/${postId}/comments/${id}`, { token: reader.token })).status,
          200,
          'kept',
        );
      });

      it("removes the comment's likes with it", async () => {
        const postId = await newPost();
        const id = (await comment(postId, reader)).body.id;
        assert.equal((await t.request('POST', `/api/comments/${id}/likes`, { token: author.token })).status, 201);
        assert.equal(
          (await t.request('DELETE', `/api/posts/${postId}/comments/${id}`, { token: reader.token })).status,
          204,
        );
        const likes = await t.server.db.selectFrom('comment_likes').selectAll().where('comment_id', '=', id).execute();
        assert.equal(likes.length, 0);
      });
    });
  });
}
