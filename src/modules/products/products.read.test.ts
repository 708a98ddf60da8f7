import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`products single read (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let product: Record<string, unknown> & { id: number };
    before(async () => {
      t = await startTestServer(dialect);
      const res = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: {
          name: 'Desk Lamp',
          category: 'home',
          price: 39.99,
          stock: 27,
          image: 'https://img.example.com/lamp.png',
          description: 'Warm light',
        },
      });
      assert.equal(res.status, 201);
      product = res.body;
    });
    after(() => t?.close());

    it('returns the product to anyone, without a token', async () => {
      const res = await t.request('GET', `/api/products/${product.id}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, product);
      assert.equal(res.body.price, 39.99);
      assert.match(String(res.body.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(res.body.createdAt, undefined);
    });

    it('carries a strong ETag and Cache-Control public, max-age=60, with no Vary on Authorization', async () => {
      const res = await t.request('GET', `/api/products/${product.id}`);
      assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=60');
      const vary = res.headers.get('vary') ?? '';
      assert.doesNotMatch(vary, /Authorization/i);
      assert.match(vary, /Accept/);
    });

    it('serves the same representation and ETag to a signed-in caller', async () => {
      const anonymous = await t.request('GET', `/api/products/${product.id}`);
      const { token } = await t.createUser();
      for (const caller of [token, t.adminToken]) {
        const res = await t.request('GET', `/api/products/${product.id}`, { token: caller });
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('etag'), anonymous.headers.get('etag'));
      }
    });

    it('answers 304 with no body when If-None-Match matches, 200 when it does not', async () => {
      const etag = (await t.request('GET', `/api/products/${product.id}`)).headers.get('etag')!;
      for (const header of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const res = await t.request('GET', `/api/products/${product.id}`, { headers: { 'if-none-match': header } });
        assert.equal(res.status, 304, header);
        assert.equal(res.text, '');
        assert.equal(res.headers.get('etag'), etag);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=60');
      }
      const stale = await t.request('GET', `/api/products/${product.id}`, { headers: { 'if-none-match': '"stale"' } });
      assert.equal(stale.status, 200);
      assert.equal(stale.body.id, product.id);
    });

    it('changes the ETag when the product changes', async () => {
      const before = (await t.request('GET', `/api/products/${product.id}`)).headers.get('etag');
      await t.request('PATCH', `/api/products/${product.id}`, { token: t.adminToken, body: { stock: 26 } });
      const after = await t.request('GET', `/api/products/${product.id}`, { headers: { 'if-none-match': before! } });
      assert.equal(after.status, 200);
      assert.notEqual(after.headers.get('etag'), before);
    });

    it('answers 404 NOT_FOUND for an unknown id and for ids that are not positive integers', async () => {
      for (const id of ['999999', 'abc', '0', '-1', '1.5', '1e3', '99999999999999999999', "1'%20OR%20'1'='1"]) {
        const res = await t.request('GET', `/api/products/${id}`);
        assert.equal(res.status, 404, id);
        assert.equal(res.body.error.code, 'NOT_FOUND');
      }
    });
  });
}
