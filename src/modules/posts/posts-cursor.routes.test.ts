import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`GET /api/posts cursor list (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let author: { id: number; token: string };
    let seeded: number[];

    const post = async (title: string) =>
      (await t.request('POST', `/api/users/${author.id}/posts`, { token: author.token, body: { title, content: 'c' } }))
        .body.id as number;

    before(async () => {
      t = await startTestServer(dialect);
      author = await t.createUser();
      seeded = [];
      for (let i = 0; i < 25; i += 1) seeded.push(await post(`Seed ${i}`));
    });
    after(() => t?.close());

    it('returns the newest 20 by id descending with {data, nextCursor}', async () => {
      const res = await t.request('GET', '/api/posts', { token: author.token });
      assert.equal(res.status, 200);
      assert.deepEqual(Object.keys(res.body).sort(), ['data', 'nextCursor']);
      const ids = res.body.data.map((p: { id: number }) => p.id);
      assert.equal(ids.length, 20);
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => b - a),
      );
      assert.equal(ids[0], Math.max(...seeded));
      assert.equal(typeof res.body.nextCursor, 'string');
      assert.match(res.body.nextCursor, /^[A-Za-z0-9_-]+$/);
      assert.deepEqual(res.body.data[0]._links.self, { href: `/api/posts/${ids[0]}` });
    });

    it('ends with nextCursor null, also when the last page is exactly full', async () => {
      const first = await t.request('GET', '/api/posts?limit=20', { token: author.token });
      const last = await t.request('GET', `/api/posts?limit=5&cursor=${first.body.nextCursor}`, {
        token: author.token,
      });
      assert.equal(last.body.data.length, 5);
      assert.equal(last.body.nextCursor, null, 'no extra row, so no next page');
      const all = await t.request('GET', '/api/posts?limit=100', { token: author.token });
      assert.equal(all.body.nextCursor, null);
    });

    it('walks every post exactly once while new posts are inserted between pages', async () => {
      const before = (await t.request('GET', '/api/posts?limit=100', { token: author.token })).body.data.map(
        (p: { id: number }) => p.id,
      );
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor ? `?limit=4&cursor=${cursor}` : '?limit=4';
        const [page] = await Promise.all([
          t.request('GET', `/api/posts${query}`, { token: author.token }),
          post(`Concurrent ${pages}`),
        ]);
        await post(`Between ${pages}`);
        assert.equal(page.status, 200);
        seen.push(...page.body.data.map((p: { id: number }) => p.id));
        cursor = page.body.nextCursor;
        pages += 1;
      } while (cursor && pages < 50);
      assert.equal(new Set(seen).size, seen.length, 'no post twice');
      assert.deepEqual(
        seen,
        [...seen].sort((a, b) => b - a),
      );
      for (const id of before) assert.ok(seen.includes(id), `post ${id} was skipped`);
    });

    it('caps limit at 100 and raises limits below 1 to 1', async () => {
      for (let i = 0; i < 80; i += 1) await post(`Bulk ${i}`);
      const big = await t.request('GET', '/api/posts?limit=1000', { token: author.token });
      assert.equal(big.body.data.length, 100);
      assert.notEqual(big.body.nextCursor, null);
      for (const limit of ['0', '-5']) {
        const small = await t.request('GET', `/api/posts?limit=${limit}`, { token: author.token });
        assert.equal(small.status, 200);
        assert.equal(small.body.data.length, 1);
      }
    });

    it('answers 422 VALIDATION_ERROR naming cursor for a malformed cursor', async () => {
      const forged = Buffer.from('{"id":"x"}').toString('base64url');
      for (const cursor of ['not*base64', 'abc', forged, encodeURIComponent('{"id":3}')]) {
        const res = await t.request('GET', `/api/posts?cursor=${cursor}`, { token: author.token });
        assert.equal(res.status, 422, cursor);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        assert.equal(res.body.error.details[0].field, 'cursor');
      }
      const limit = await t.request('GET', '/api/posts?limit=many', { token: author.token });
      assert.equal(limit.status, 422);
      assert.equal(limit.body.error.details[0].field, 'limit');
    });

    it('carries an ETag; an unchanged page answers 304', async () => {
      const res = await t.request('GET', '/api/posts?limit=3', { token: author.token });
      const again = await t.request('GET', '/api/posts?limit=3', {
        token: author.token,
        headers: { 'if-none-match': res.headers.get('etag')! },
      });
      assert.equal(again.status, 304);
    });
  });
}
