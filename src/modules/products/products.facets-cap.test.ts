import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Facets = { facets: { category: { value: string; count: number }[] } };

/** DECISIONS §14: a facet gives at most 50 values, most frequent first, ties by value; from the counters or the rows. */
for (const dialect of DIALECTS) {
  describe(`products facets cap (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
      // 55 categories: c00 has 55 products, c01 54, ... c54 one; every product costs 5.
      const rows = Array.from({ length: 55 }, (_, c) =>
        Array.from({ length: 55 - c }, (_, i) => ({
          name: `p${c}-${i}`,
          category: `c${String(c).padStart(2, '0')}`,
          price_cents: 500,
          stock: 1,
          created_at: '2026-04-01T00:00:00.000Z',
          updated_at: '2026-04-01T00:00:00.000Z',
        })),
      ).flat();
      for (let i = 0; i < rows.length; i += 200)
        await t.server.db
          .insertInto('products')
          .values(rows.slice(i, i + 200))
          .execute();
    });
    after(() => t?.close());

    it('gives the 50 most frequent categories, from the counters and from the rows alike', async () => {
      const expected = Array.from({ length: 50 }, (_, c) => ({
        value: `c${String(c).padStart(2, '0')}`,
        count: 55 - c,
      }));
      for (const path of ['/api/v2/products?facets=category', '/api/v2/products?facets=category&price[lte]=10']) {
        const res = await t.request('GET', path);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual((res.body as Facets).facets.category, expected, path);
      }
    });
  });
}
