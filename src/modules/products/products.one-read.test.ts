import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { PRODUCT_QUERY_V2 } from './products.list.ts';

for (const dialect of DIALECTS) {
  describe(`products list with q and facets (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
      for (const [name, category] of [
        ['Steel Pan', 'kitchen'],
        ['Steel Rule', 'tools'],
        ['Oak Board', 'kitchen'],
      ]) {
        const res = await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name, category, price: 10, stock: 1 },
        });
        assert.equal(res.status, 201);
      }
    });
    after(() => t?.close());

    it('reads q and the list grammar once for the page, its search extras and its facets', async () => {
      let reads = 0;
      // Every read of `q` starts a parse of it (and of the list grammar around it): count the reads.
      const options = {
        parameters: { q: 'steel', facets: 'category' },
        grammar: PRODUCT_QUERY_V2,
        get q() {
          reads += 1;
          return 'steel';
        },
      };
      const [page, facets] = await t.server.app.services.products.listProductsWithFacets(null, options);
      assert.equal(reads, 1);
      assert.deepEqual(page.items.map((p) => p.name).sort(), ['Steel Pan', 'Steel Rule']);
      assert.deepEqual(
        facets?.facets['category']?.map((f) => f.value).sort(),
        ['kitchen', 'tools'],
        'the facets count the same matches as the page',
      );
    });

    it('answers GET /api/v2/products?q=steel&facets=category with the matches and their facets', async () => {
      const res = await t.request('GET', '/api/v2/products?q=steel&facets=category');
      assert.equal(res.status, 200);
      assert.equal(res.body.data.length, 2);
      assert.deepEqual(res.body.facets.category.map((f: { value: string }) => f.value).sort(), ['kitchen', 'tools']);
    });
  });
}
