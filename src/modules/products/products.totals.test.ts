import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../test-support/dialects.ts';
import { startTestServer, type TestServer } from '../../test-support/test-server.ts';


/** `total` for the unfiltered, category and in_stock lists comes from trigger-kept counters: they must stay exact. */
for (const dialect of DIALECTS) {
  describe(`products list totals (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    async function assertTotalsMatchRows() {
      const rows = await t.server.db.selectFrom('products').select(['category', 'stock']).execute();
      const expect = (keep: (r: { category: string; stock: number }) => boolean) => rows.filter(keep).length;
      for (const [query, expected] of [
        ['', rows.length],
        ['in_stock=true', expect((r) => r.stock > 0)],
        ['category=a', expect((r) => r.category === 'a')],
        ['category=b&in_stock=true', expect((r) => r.category === 'b' && r.stock > 0)],
        ['category=nowhere', 0],
      ] as const) {
        const res = await t.request('GET', `/api/products?${query}`);
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.pagination.total, expected, query);
      }
    }

    it('stay exact through inserts, batch inserts, stock and category changes, and deletes', async () => {
      const created: number[] = [];
      for (const [category, stock] of [['a', 1], ['a', 0], ['b', 5], ['b', 0]] as const) {
        const res = await t.request('POST', '/api/products', { token: t.adminToken, body: { name: `P ${category}${stock}`, category, price: 1, stock } });
        created.push(res.body.id);
      }
      await assertTotalsMatchRows();
      const at = new Date().toISOString();
      await t.server.db
        .insertInto('products')
        .values(Array.from({ length: 30 }, (_, i) => ({ name: `Bulk ${i}`, category: i % 2 ? 'a' : 'b', price_cents: 100, stock: i % 3, created_at: at, updated_at: at })))
        .execute();
      await assertTotalsMatchRows();
      await t.request('PATCH', `/api/products/${created[0]}`, { token: t.adminToken, body: { stock: 0 } });
      await t.request('PATCH', `/api/products/${created[1]}`, { token: t.adminToken, body: { stock: 4, category: 'b' } });
      await t.request('PATCH', `/api/products/${created[2]}`, { token: t.adminToken, body: { stock: 6 } });
      await t.server.db.updateTable('products').set({ stock: 0 }).where('name', 'like', 'Bulk%').execute();
      await assertTotalsMatchRows();
      await t.request('DELETE', `/api/products/${created[3]}`, { token: t.adminToken });
      await t.server.db.deleteFrom('products').where('category', '=', 'a').execute();
      await assertTotalsMatchRows();
    });
  });
}
