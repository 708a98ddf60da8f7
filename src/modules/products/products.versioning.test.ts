import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** The one breaking v2 difference (DECISIONS §7): products say `createdAt` instead of `created_at`. */
for (const dialect of DIALECTS) {
  describe(`products in v1 and v2 (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const ids: number[] = [];
    before(async () => {
      t = await startTestServer(dialect);
      for (const name of ['Alpha', 'Beta', 'Gamma']) {
        const res = await t.request('POST', '/api/v2/products', {
          token: t.adminToken,
          body: { name, category: 'c', price: 1, stock: 1 },
        });
        assert.equal(res.status, 201);
        ids.push(res.body.id);
        // Distinct creation times, so sorting by them is observable.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    after(() => t?.close());

    it('shows created_at in v1 and createdAt in v2, side by side, with the same value', async () => {
      const v1 = await t.request('GET', `/api/v1/products/${ids[0]}`);
      const v2 = await t.request('GET', `/api/v2/products/${ids[0]}`);
      assert.equal(v1.status, 200);
      assert.equal(v2.status, 200);
      assert.match(v1.body.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.equal(v1.body.createdAt, undefined);
      assert.equal(v2.body.createdAt, v1.body.created_at);
      assert.equal(v2.body.created_at, undefined);
      const rest = (body: Record<string, unknown>) =>
        Object.entries(body).filter(([key]) => !/^created_?[aA]t$|^_links$/.test(key));
      assert.deepEqual(rest(v1.body), rest(v2.body));
      assert.equal(v2.body._links.self.href, `/api/v2/products/${ids[0]}`);
    });

    it('uses the negotiated version on plain /api (header, Accept, query)', async () => {
      for (const [path, headers] of [
        [`/api/products/${ids[0]}`, { 'API-Version': '2' }],
        [`/api/products/${ids[0]}`, { Accept: 'application/vnd.content.v2+json' }],
        [`/api/products/${ids[0]}?version=2`, {}],
      ] as const) {
        const res = await t.request('GET', path, { headers });
        assert.equal(typeof res.body.createdAt, 'string', path);
        assert.equal(res.body.created_at, undefined);
      }
      const v1 = await t.request('GET', `/api/products/${ids[0]}`);
      assert.equal(typeof v1.body.created_at, 'string');
    });

    it('returns the version shape from writes too', async () => {
      const created = await t.request('POST', '/api/v1/products', {
        token: t.adminToken,
        body: { name: 'Delta', category: 'c', price: 2, stock: 0 },
      });
      assert.equal(typeof created.body.created_at, 'string');
      const patched = await t.request('PATCH', `/api/v2/products/${created.body.id}`, {
        token: t.adminToken,
        body: { stock: 3 },
      });
      assert.equal(patched.status, 200);
      assert.equal(typeof patched.body.createdAt, 'string');
      assert.equal(patched.body.created_at, undefined);
      await t.request('DELETE', `/api/v2/products/${created.body.id}`, { token: t.adminToken });
    });

    it('accepts each version its own name in fields and refuses the other with 422', async () => {
      const v1 = await t.request('GET', '/api/v1/products?fields=name,created_at');
      assert.equal(v1.status, 200);
      assert.deepEqual(Object.keys(v1.body.data[0]).sort(), ['_links', 'created_at', 'id', 'name']);
      const v2 = await t.request('GET', '/api/v2/products?fields=name,createdAt');
      assert.equal(v2.status, 200);
      assert.deepEqual(Object.keys(v2.body.data[0]).sort(), ['_links', 'createdAt', 'id', 'name']);
      const wrong2 = await t.request('GET', '/api/v2/products?fields=created_at');
      assert.equal(wrong2.status, 422);
      assert.equal(wrong2.body.error.details[0].field, 'fields');
      const wrong1 = await t.request('GET', '/api/v1/products?fields=createdAt');
      assert.equal(wrong1.status, 422);
    });

    it('sorts by created_at in v1 and by createdAt or -createdAt in v2; the other name falls back to id', async () => {
      const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((p) => p.name);
      assert.deepEqual(names(await t.request('GET', '/api/v1/products?sort=created_at')), ['Alpha', 'Beta', 'Gamma']);
      assert.deepEqual(names(await t.request('GET', '/api/v2/products?sort=createdAt')), ['Alpha', 'Beta', 'Gamma']);
      assert.deepEqual(names(await t.request('GET', '/api/v2/products?sort=-createdAt')), ['Gamma', 'Beta', 'Alpha']);
      // Outside the version's whitelist: the seed's fallback, ascending id.
      assert.deepEqual(names(await t.request('GET', '/api/v1/products?sort=-createdAt')), ['Alpha', 'Beta', 'Gamma']);
      assert.deepEqual(names(await t.request('GET', '/api/v2/products?sort=-name,created_at')), [
        'Alpha',
        'Beta',
        'Gamma',
      ]);
      assert.deepEqual(names(await t.request('GET', '/api/v2/products?sort=-name')), ['Gamma', 'Beta', 'Alpha']);
    });

    it('gives v1 and v2 representations different ETags, and If-Match follows the version read', async () => {
      const v1 = await t.request('GET', `/api/v1/products/${ids[1]}`);
      const v2 = await t.request('GET', `/api/v2/products/${ids[1]}`);
      assert.notEqual(v1.headers.get('etag'), v2.headers.get('etag'));
      const ok = await t.request('PATCH', `/api/v2/products/${ids[1]}`, {
        token: t.adminToken,
        body: { stock: 5 },
        headers: { 'if-match': v2.headers.get('etag')! },
      });
      assert.equal(ok.status, 200);
    });
  });
}
