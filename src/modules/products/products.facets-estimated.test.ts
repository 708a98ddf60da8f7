import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Page = {
  facets: { category: { value: string; count: number }[] };
  facetsEstimated?: boolean;
  pagination: { total?: number; totalEstimated?: boolean };
};

/**
 * DECISIONS §14 "Cost": facets over more than COUNT_EXACT_LIMIT matching products come from a sample
 * and say `facetsEstimated: true`; up to it they are exact and say nothing. Twelve mugs, eight of them
 * in `kitchen`, four in `office`; COUNT_EXACT_LIMIT 10.
 */
for (const dialect of DIALECTS) {
  describe(`products facets over a large match set (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { COUNT_EXACT_LIMIT: '10' });
      const at = '2026-01-01T00:00:00.000Z';
      const rows = Array.from({ length: 12 }, (_, i) => ({
        name: `Mug ${i}`,
        category: i < 8 ? 'kitchen' : 'office',
        description: 'a mug',
        price_cents: 100 * (i + 1),
        stock: 1,
        created_at: at,
        updated_at: at,
      }));
      await t.server.db.insertInto('products').values(rows).execute();
    });
    after(() => t?.close());

    const list = async (query: string): Promise<Page> => {
      const res = await t.request('GET', `/api/v2/products?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body as Page;
    };

    it('counts exactly, and says nothing, up to the limit', async () => {
      const page = await list('q=mug&facets=category&price[lte]=10');
      assert.deepEqual(page.facets.category, [
        { value: 'kitchen', count: 8 },
        { value: 'office', count: 2 },
      ]);
      assert.equal(page.facetsEstimated, undefined);
    });

    it('marks the counts estimated above the limit, most frequent first', async () => {
      for (const query of ['q=mug&facets=category', 'facets=category&price[lte]=50']) {
        const page = await list(query);
        assert.equal(page.facetsEstimated, true, query);
        const counts = page.facets.category.map((facet) => facet.count);
        assert.ok(
          counts.every((count) => count > 0),
          query,
        );
        assert.deepEqual(
          counts,
          [...counts].sort((a, b) => b - a),
          query,
        );
        assert.equal(page.facets.category[0]!.value, 'kitchen', query);
      }
    });

    it('estimates the matches of a word above the limit on SQLite from its vocabulary; PostgreSQL counts what its page sorted', async () => {
      const { pagination } = await list('q=mug&count=estimated&limit=5');
      assert.equal(pagination.total, 12);
      // SQLite's vocabulary knows twelve rows hold the word (an estimate: stemming could find more). PostgreSQL
      // expects few matches, so its relevance page sorted every match's id and counted them: exact.
      assert.equal(pagination.totalEstimated, dialect.name === 'sqlite' ? true : undefined);
    });
  });
}
