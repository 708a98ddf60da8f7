import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`likes REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: { id: number; token: string };

    before(async () => {
      t = await startTestServer(dialect);
      author = await t.createUser();
    });
    after(() => t?.close());

    const newComment = async () => {
      const post = await t.request('POST', `/api/users/${author.id}/posts`, {
        token: author.token,
        body: { title: 'T', content: 'C' },
      });
      const comment = await t.request('POST', `/api/posts/${post.body.id}/comments`, {
        token: author.token,
        body: { text: 'hi' },
      });
      return comment.body.id as number;
    };
    const likeRows = (commentId: number) =>
      t.server.db.selectFrom('comment_likes').selectAll().where('comment_id', '=', commentId).execute();

    it('likes as the caller: 201 with Location the first time, 200 with the same like after', async () => {
      const commentId = await newComment();
      const fan = await t.createUser();
      const first = await t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token });
      assert.equal(first.status, 201);
      assert.equal(first.headers.get('location'), `/api/comments/${commentId}/likes/${fan.id}`);
      assert.equal(first.body.userId, fan.id);
      assert.equal(first.body.commentId, commentId);
      assert.match(first.body.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(first.body._links, {
        self: { href: `/api/comments/${commentId}/likes/${fan.id}` },
        user: { href: `/api/users/${fan.id}` },
      });
      const second = await t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token });
      assert.equal(second.status, 200);
      assert.deepEqual(second.body, first.body);
      assert.equal((await likeRows(commentId)).length, 1);
      const read = await t.request('GET', first.headers.get('location')!, { token: author.token });
      assert.deepEqual(read.body, first.body);
    });

    it('decides 10 concurrent likes by one user in the database: one row, one 201, nine 200, no 500', async () => {
      const commentId = await newComment();
      const fan = await t.createUser();
      const results = await Promise.all(
        Array.from({ length: 10 }, () => t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token })),
      );
      const statuses = results.map((r) => r.status).sort();
      assert.deepEqual(statuses, [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
      assert.equal((await likeRows(commentId)).length, 1);
    });

    it('lists likes with the page envelope, {userId, createdAt, _links.user}, oldest first', async () => {
      const commentId = await newComment();
      const fans = [];
      for (let i = 0; i < 3; i += 1) {
        const fan = await t.createUser();
        fans.push(fan.id);
        await t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token });
      }
      const res = await t.request('GET', `/api/comments/${commentId}/likes`, { token: author.token });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.pagination, {
        page: 1,
        limit: 20,
        total: 3,
        totalPages: 1,
        hasNext: false,
        hasPrev: false,
        nextCursor: null,
      });
      assert.deepEqual(
        res.body.data.map((l: { userId: number }) => l.userId),
        fans,
      );
      assert.deepEqual(res.body.data[0]._links.user, { href: `/api/users/${fans[0]}` });
      const paged = await t.request('GET', `/api/comments/${commentId}/likes?limit=2&page=2`, { token: author.token });
      assert.deepEqual(
        paged.body.data.map((l: { userId: number }) => l.userId),
        [fans[2]],
      );
      assert.equal(paged.body.pagination.hasPrev, true);
      assert.equal(
        (await t.request('GET', `/api/comments/${commentId}/likes?limit=500`, { token: author.token })).body.pagination
          .limit,
        100,
      );
      assert.equal(
        (await t.request('GET', `/api/comments/${commentId}/likes?limit=x`, { token: author.token })).status,
        422,
      );
      const cached = await t.request('GET', `/api/comments/${commentId}/likes`, {
        token: author.token,
        headers: { 'if-none-match': res.headers.get('etag')! },
      });
      assert.equal(cached.status, 304);
    });

    it("DELETE removes only the caller's like (204), and is 204 again when there is none", async () => {
      const commentId = await newComment();
      const fan = await t.createUser();
      const other = await t.createUser();
      await t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token });
      await t.request('POST', `/api/comments/${commentId}/likes`, { token: other.token });
      const res = await t.request('DELETE', `/api/comments/${commentId}/likes`, { token: fan.token });
      assert.equal(res.status, 204);
      assert.equal(res.text, '');
      assert.deepEqual(
        (await likeRows(commentId)).map((r) => r.user_id),
        [other.id],
      );
      assert.equal((await t.request('DELETE', `/api/comments/${commentId}/likes`, { token: fan.token })).status, 204);
      assert.equal(
        (await t.request('GET', `/api/comments/${commentId}/likes/${fan.id}`, { token: fan.token })).status,
        404,
      );
      assert.equal(
        (await t.request('POST', `/api/comments/${commentId}/likes`, { token: fan.token })).status,
        201,
        'can like again',
      );
    });

    it('answers 404 for unknown or non-integer comments and 401 without a token', async () => {
      for (const id of ['999999', 'abc', '0', '-1']) {
        for (const method of ['GET', 'POST', 'DELETE']) {
          const res = await t.request(method, `/api/comments/${id}/likes`, { token: author.token });
          assert.equal(res.status, 404, `${method} ${id}`);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        }
      }
      const commentId = await newComment();
      for (const method of ['GET', 'POST', 'DELETE']) {
        assert.equal((await t.request(method, `/api/comments/${commentId}/likes`)).status, 401, method);
      }
      assert.equal((await likeRows(commentId)).length, 0);
    });

    it('ignores an empty JSON body on POST but refuses a body with fields (422)', async () => {
      const commentId = await newComment();
      const empty = await t.request('POST', `/api/comments/${commentId}/likes`, {
        token: author.token,
        raw: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(empty.status, 201);
      const withBody = await t.request('POST', `/api/comments/${commentId}/likes`, {
        token: author.token,
        body: { userId: 5 },
      });
      assert.equal(withBody.status, 422);
      assert.equal(withBody.body.error.details[0].field, 'userId');
    });
  });
}
