import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface ListedComment {
  id: number;
  authorId: number;
  createdAt: string;
}
interface ListedLike {
  userId: number;
  createdAt: string;
}
type Listing<T> = { data: T[]; pagination: Record<string, unknown> };

/** DECISIONS §12 on a post's comments and a comment's likes: filters, sorts, counts and cursors, REST v1 and v2. */
for (const dialect of DIALECTS) {
  describe(`comment and like list queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let token: string;
    let postId: number;
    let otherPostId: number;
    let commentId: number;
    const people: { id: number; token: string }[] = [];

    const list = async <T>(path: string, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}${path}`, { token });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Listing<T>;
    };
    /** Walks a list to its end by cursor, `limit` at a time. */
    const walk = async <T>(path: string, key: (item: T) => number, prefix: string) => {
      const seen: number[] = [];
      const join = path.includes('?') ? '&' : '?';
      let page = await list<T>(`${path}${join}limit=2`, prefix);
      for (;;) {
        seen.push(...page.data.map(key));
        const next = page.pagination.nextCursor as string | null;
        if (next === null) return seen;
        page = await list<T>(`${path}${join}limit=2&cursor=${next}`, prefix);
      }
    };

    before(async () => {
      t = await startTestServer(dialect);
      for (let i = 0; i < 3; i += 1) people.push(await t.createUser());
      token = people[0]!.token;
      const post = async () =>
        (await t.request('POST', `/api/users/${people[0]!.id}/posts`, { token, body: { title: 'T', content: 'C' } }))
          .body.id as number;
      postId = await post();
      otherPostId = await post();
      for (let i = 0; i < 7; i += 1) {
        const who = people[i % 3]!;
        const res = await t.request('POST', `/api/posts/${postId}/comments`, {
          token: who.token,
          body: { text: `c${i}` },
        });
        commentId ??= res.body.id;
      }
      await t.request('POST', `/api/posts/${otherPostId}/comments`, { token, body: { text: 'elsewhere' } });
      for (const person of people) {
        await t.request('POST', `/api/comments/${commentId}/likes`, { token: person.token });
      }
    });
    after(() => t?.close());

    it('filters a post’s comments by author and creation time, within the post', async () => {
      const all = (await list<ListedComment>(`/posts/${postId}/comments`)).data;
      assert.equal(all.length, 7);
      const second = people[1]!.id;
      const byAuthor = await list<ListedComment>(`/posts/${postId}/comments?authorId=${second}`);
      assert.deepEqual(
        byAuthor.data.map((c) => c.id),
        all.filter((c) => c.authorId === second).map((c) => c.id),
      );
      assert.equal(byAuthor.pagination.total, byAuthor.data.length);
      const others = await list<ListedComment>(`/posts/${postId}/comments?authorId[in]=${people[0]!.id},${second}`);
      assert.deepEqual(
        others.data.map((c) => c.id),
        all.filter((c) => c.authorId !== people[2]!.id).map((c) => c.id),
      );
      const since = all[3]!.createdAt;
      const later = await list<ListedComment>(`/posts/${postId}/comments?createdAt[gt]=${since}`);
      assert.deepEqual(
        later.data.map((c) => c.id),
        all.filter((c) => c.createdAt > since).map((c) => c.id),
      );
    });

    it('sorts comments by creation time or author, newest first with a leading -', async () => {
      const all = (await list<ListedComment>(`/posts/${postId}/comments`)).data;
      assert.deepEqual(
        (await list<ListedComment>(`/posts/${postId}/comments?sort=-createdAt`)).data.map((c) => c.id),
        [...all]
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id - b.id))
          .map((c) => c.id),
      );
      assert.deepEqual(
        (await list<ListedComment>(`/posts/${postId}/comments?sort=-authorId`)).data.map((c) => c.id),
        [...all].sort((a, b) => b.authorId - a.authorId || a.id - b.id).map((c) => c.id),
      );
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks comments and likes by cursor, each once, in order (${prefix})`, async () => {
        for (const query of ['', '?sort=-createdAt', `?authorId[ne]=${people[1]!.id}&sort=authorId`]) {
          const whole = (await list<ListedComment>(`/posts/${postId}/comments${query}`, prefix)).data.map((c) => c.id);
          assert.deepEqual(await walk<ListedComment>(`/posts/${postId}/comments${query}`, (c) => c.id, prefix), whole);
        }
        for (const query of ['', '?sort=-userId', '?sort=-createdAt']) {
          const whole = (await list<ListedLike>(`/comments/${commentId}/likes${query}`, prefix)).data.map(
            (l) => l.userId,
          );
          assert.equal(whole.length, 3);
          assert.deepEqual(
            await walk<ListedLike>(`/comments/${commentId}/likes${query}`, (l) => l.userId, prefix),
            whole,
          );
        }
      });
    }

    it('filters and counts likes by user', async () => {
      const likes = await list<ListedLike>(`/comments/${commentId}/likes?userId=${people[2]!.id}&count=none`);
      assert.deepEqual(
        likes.data.map((l) => l.userId),
        [people[2]!.id],
      );
      assert.equal(likes.pagination.total, undefined);
      const estimated = await list<ListedLike>(
        `/comments/${commentId}/likes?userId[ne]=${people[2]!.id}&count=estimated`,
      );
      assert.equal(estimated.pagination.total, 2);
    });

    it('refuses a cursor of another post, unknown fields, operators and sorts (422 naming the parameter)', async () => {
      const first = await list<ListedComment>(`/posts/${postId}/comments?limit=2`);
      const res = await t.request('GET', `/api/posts/${otherPostId}/comments?cursor=${first.pagination.nextCursor}`, {
        token,
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.details[0].field, 'cursor');
      for (const [path, field] of [
        [`/posts/${postId}/comments?text[contains]=c`, 'text[contains]'],
        [`/posts/${postId}/comments?authorId[gt]=1`, 'authorId[gt]'],
        [`/posts/${postId}/comments?authorId=me`, 'authorId'],
        [`/posts/${postId}/comments?sort=text`, 'sort'],
        [`/comments/${commentId}/likes?sort=name`, 'sort'],
        [`/comments/${commentId}/likes?userId[contains]=1`, 'userId[contains]'],
      ] as const) {
        const refused = await t.request('GET', `/api${path}`, { token });
        assert.equal(refused.status, 422, path);
        assert.ok(
          refused.body.error.details.some((d: { field: string }) => d.field === field),
          `${path}: ${JSON.stringify(refused.body.error.details)}`,
        );
      }
    });
  });
}
