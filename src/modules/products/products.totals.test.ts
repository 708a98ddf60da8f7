import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** `total` for the unfiltered, category and in_stock lists comes from trigger-kept counters: they must stay exact. */
for (const dialect of DIALECTS) {
  describe(`products list totals (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      // The report worker keeps polling (its claim is a transaction on PostgreSQL): statementsOf
      // counts a request's own statements only. Counting all of them between two points counted a
      // poll when one fell inside a request under load ("a concurrent begin was counted": 2 !== 1).
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
      for (const [category, stock] of [
        ['a', 1],
        ['a', 0],
        ['b', 5],
        ['b', 0],
      ] as const) {
        const res = await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: `P ${category}${stock}`, category, price: 1, stock },
        });
        created.push(res.body.id);
      }
      await assertTotalsMatchRows();
      const at = new Date().toISOString();
      await t.server.db
        .insertInto('products')
        .values(
          Array.from({ length: 30 }, (_, i) => ({
            name: `Bulk ${i}`,
            category: i % 2 ? 'a' : 'b',
            price_cents: 100,
            stock: i % 3,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      await assertTotalsMatchRows();
      await t.request('PATCH', `/api/products/${created[0]}`, { token: t.adminToken, body: { stock: 0 } });
      await t.request('PATCH', `/api/products/${created[1]}`, {
        token: t.adminToken,
        body: { stock: 4, category: 'b' },
      });
      await t.request('PATCH', `/api/products/${created[2]}`, { token: t.adminToken, body: { stock: 6 } });
      await t.server.db.updateTable('products').set({ stock: 0 }).where('name', 'like', 'Bulk%').execute();
      await assertTotalsMatchRows();
      await t.request('DELETE', `/api/products/${created[3]}`, { token: t.adminToken });
      await t.server.db.deleteFrom('products').where('category', '=', 'a').execute();
      await assertTotalsMatchRows();
    });

    it('reads a page and its total in one statement; only a page past the end counts on its own', async () => {
      for (const [category, price] of [
        ['c', 10],
        ['c', 20],
        ['c', 30],
        ['d', 40],
      ] as const) {
        await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: `One ${category}${price}`, category, price, stock: 1 },
        });
      }
      for (const [query, total, items] of [
        ['category=c', 3, 3],
        ['category=c&in_stock=true&sort=-price', 3, 3],
        ['category=c&min_price=15&max_price=30', 2, 2],
        ['category=c&search=one', 3, 3],
        ['category=nowhere', 0, 0],
        ['category=c&limit=1&page=3', 3, 1],
        ['category=c&offset=3', 3, 0],
        ['category=c&min_price=15&page=9', 2, 0],
      ] as const) {
        const { result: res, statements } = await statementsOf(t.server.db, () =>
          t.request('GET', `/api/products?${query}`),
        );
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.pagination.total, total, query);
        assert.equal(res.body.data.length, items, query);
        // An empty page at offset 0 means no match at all; past the end, the total needs its own count.
        const expected = items === 0 && total > 0 ? 2 : 1;
        assert.equal(statements.length, expected, `${query}: ${statements.join('\n')}`);
      }
    });
  });
}
