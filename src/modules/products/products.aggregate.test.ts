import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface Group {
  key: Record<string, string | number | null>;
  count: number;
  sum?: Record<string, number>;
  avg?: Record<string, number | null>;
  min?: Record<string, number | null>;
  max?: Record<string, number | null>;
}
interface Answer {
  data: Group[];
  groups: number;
}

/** name, category, cents, stock, createdAt. 'Tools' sorts before 'chairs' by bytes (not by PostgreSQL's locale). */
const CATALOGUE: [string, string, number, number, string][] = [
  ['Oak chair', 'chairs', 1999, 5, '2026-03-31T23:30:00.000Z'],
  ['Pine chair', 'chairs', 2001, 0, '2026-04-01T00:30:00.000Z'],
  ['Desk lamp', 'lighting', 1, 3, '2026-04-02T10:00:00.000Z'],
  ['Floor lamp', 'lighting', 4, 2, '2026-04-03T10:00:00.000Z'],
  ['Garden hose', 'garden', 10, 10, '2026-04-04T10:00:00.000Z'],
  ['Rake', 'garden', 20, 2, '2026-04-05T10:00:00.000Z'],
  ['Hammer', 'Tools', 999, 7, '2026-04-06T10:00:00.000Z'],
  ['Saw', 'Tools', 1, 4, '2026-04-07T10:00:00.000Z'],
];

const answersByDialect = new Map<string, unknown[]>();
const NOW = '2026-04-10T10:00:00.000Z';

/** DECISIONS §14 on products: aggregates in v1 and v2, public, over the list's filters (the seed's too), and facets. */
for (const dialect of DIALECTS) {
  describe(`products aggregates and facets (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    const get = async (path: string) => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Answer & { facets?: Record<string, { value: string; count: number }[]> };
    };
    const refusal = async (path: string) => {
      const res = await t.request('GET', path);
      assert.ok(res.status >= 400 && res.status < 500, `${path.slice(0, 80)}: ${res.status} ${res.text.slice(0, 200)}`);
      return {
        status: res.status,
        error: (res.body as { error: { code: string; details?: { field: string }[] } }).error,
      };
    };

    before(async () => {
      t = await startTestServer(dialect, { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' });
      await t.server.db
        .insertInto('products')
        .values(
          CATALOGUE.map(([name, category, cents, stock, at]) => ({
            name,
            category,
            price_cents: cents,
            stock,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
    });
    after(() => t?.close());

    it('measures per category without a token: money exact from cents, averages half-even', async () => {
      const answer = await get(
        '/api/v2/products/aggregate?groupBy=category&measures=sum(price),avg(price),avg(stock),min(stock),max(price)',
      );
      assert.equal(answer.groups, 4);
      assert.deepEqual(answer.data, [
        {
          key: { category: 'Tools' },
          count: 2,
          sum: { price: 10 },
          avg: { price: 5, stock: 5.5 },
          min: { stock: 4 },
          max: { price: 9.99 },
        },
        {
          key: { category: 'chairs' },
          count: 2,
          sum: { price: 40 },
          avg: { price: 20, stock: 2.5 },
          min: { stock: 0 },
          max: { price: 20.01 },
        },
        {
          key: { category: 'garden' },
          count: 2,
          sum: { price: 0.3 },
          avg: { price: 0.15, stock: 6 },
          min: { stock: 2 },
          max: { price: 0.2 },
        },
        // 0.01 and 0.04: 2.5 cents, to the even 2.
        {
          key: { category: 'lighting' },
          count: 2,
          sum: { price: 0.05 },
          avg: { price: 0.02, stock: 2.5 },
          min: { stock: 2 },
          max: { price: 0.04 },
        },
      ]);
      // 33 units over 8 products: 4.125, to the even 4.12.
      assert.deepEqual((await get('/api/v2/products/aggregate?measures=avg(stock)')).data, [
        { key: {}, count: 8, avg: { stock: 4.12 } },
      ]);
    });

    it('reads the list’s filters as the list does, the seed’s parameters included', async () => {
      const count = async (query: string) => (await get(`/api/v2/products/aggregate?${query}`)).data[0]!.count;
      assert.equal(await count('search=lamp'), 2);
      assert.equal(await count('category=chairs'), 2);
      assert.equal(await count('in_stock=true'), 7);
      assert.equal(await count('min_price=0.04&max_price=0.2'), 3);
      assert.equal(await count('price[gte]=9.99&stock[lt]=6'), 2);
      assert.equal(await count('category[in]=garden,Tools&name[contains]=a'), 4);
      assert.equal((await refusal('/api/v2/products/aggregate?price[gte]=0.001')).status, 422);
    });

    it('buckets the creation time in UTC, named as each version names it', async () => {
      const months = [
        { key: { 'createdAt:month': '2026-03-01T00:00:00.000Z' }, count: 1 },
        { key: { 'createdAt:month': '2026-04-01T00:00:00.000Z' }, count: 7 },
      ];
      assert.deepEqual((await get('/api/v2/products/aggregate?groupBy=createdAt:month')).data, months);
      assert.deepEqual(
        (await get('/api/v1/products/aggregate?groupBy=created_at:month')).data,
        months.map((g) => ({ key: { 'created_at:month': g.key['createdAt:month'] }, count: g.count })),
      );
      assert.equal((await refusal('/api/v1/products/aggregate?groupBy=createdAt:month')).status, 422);
      assert.equal((await refusal('/api/v2/products/aggregate?groupBy=created_at:month')).status, 422);
    });

    it('sorts groups by a measure, and refuses unknown measures, fields and buckets naming them', async () => {
      const sorted = await get('/api/v2/products/aggregate?groupBy=category&sort=-sum(price)&limit=3');
      assert.deepEqual(
        sorted.data.map((g) => g.key.category),
        ['chairs', 'Tools', 'garden'],
      );
      assert.equal(sorted.groups, 4);
      for (const [query, field] of [
        ['measures=sum(amount)', 'measures'],
        ['measures=avg(name)', 'measures'],
        ['groupBy=name', 'groupBy'],
        ['groupBy=createdAt:quarter', 'groupBy'],
        ['groupBy=category&sort=-avg(price', 'sort'],
      ] as const) {
        const { status, error } = await refusal(`/api/v2/products/aggregate?${query}`);
        assert.equal(status, 422, query);
        assert.ok(
          error.details?.some((d) => d.field === field),
          `${query}: ${JSON.stringify(error.details)}`,
        );
      }
      for (const hostile of [
        `groupBy=${Array(50).fill('category').join(',')}`,
        'measures=sum(',
        'measures=sum(price))',
        'measures=sum(price%00)',
        `measures=${'x'.repeat(10_000)}`,
        `groupBy=${encodeURIComponent('category) union select 1 --')}`,
      ]) {
        await refusal(`/api/v2/products/aggregate?${hostile}`);
      }
    });

    it('counts facets and aggregates over a search’s matches only (q), the facet’s own filter still left out', async () => {
      const lamps = await get('/api/v2/products?q=lamp&facets=category');
      assert.deepEqual(lamps.facets, { category: [{ value: 'lighting', count: 2 }] });
      // The page is garden's (no lamp there), the facet counts every category the search matches.
      const elsewhere = await get('/api/v2/products?q=lamp%20or%20chair&category=garden&facets=category');
      assert.deepEqual(elsewhere.facets, {
        category: [
          { value: 'chairs', count: 2 },
          { value: 'lighting', count: 2 },
        ],
      });
      const grouped = await get('/api/v2/products/aggregate?q=chair&groupBy=category&measures=sum(price)');
      assert.deepEqual(grouped.data, [{ key: { category: 'chairs' }, count: 2, sum: { price: 40 } }]);
      const v1 = await get('/api/v1/products/aggregate?q=hammer&measures=count');
      assert.deepEqual(
        v1.data.map((group) => group.count),
        [1],
      );
      assert.equal((await refusal('/api/v2/products/aggregate?q=lamp&highlight=name')).status, 422);
      // A q of no word to find matches nothing, as in the list (it was a 500 on SQLite: an empty MATCH).
      for (const q of ["'", '"', '--', 'the']) {
        const none = await get(`/api/v2/products/aggregate?q=${encodeURIComponent(q)}&groupBy=category`);
        assert.deepEqual(none, { data: [], groups: 0 }, q);
        const listed = await get(`/api/v2/products?q=${encodeURIComponent(q)}&facets=category`);
        assert.deepEqual(listed.facets, { category: [] }, q);
      }
    });

    it('counts the category facet over the other filters, its own left out, most frequent first, ties by value', async () => {
      const all = [
        { value: 'Tools', count: 2 },
        { value: 'chairs', count: 2 },
        { value: 'garden', count: 2 },
        { value: 'lighting', count: 2 },
      ];
      assert.deepEqual((await get('/api/v2/products?facets=category')).facets, { category: all });
      const chairs = await get('/api/v2/products?category=chairs&facets=category');
      assert.equal((chairs as unknown as { data: unknown[] }).data.length, 2);
      assert.deepEqual(chairs.facets, { category: all });
      assert.deepEqual((await get('/api/v1/products?category[in]=garden&facets=category')).facets, { category: all });
      assert.deepEqual((await get('/api/v2/products?in_stock=true&price[lt]=10&facets=category')).facets, {
        category: [
          { value: 'Tools', count: 2 },
          { value: 'garden', count: 2 },
          { value: 'lighting', count: 2 },
        ],
      });
      assert.equal((await get('/api/v2/products')).facets, undefined);
      // From the counters (the whole catalogue, or in stock): the same counts, a category emptied left out.
      const ghost = await t.server.db
        .insertInto('products')
        .values({ name: 'Ghost', category: 'ghost', price_cents: 1, stock: 1, created_at: NOW, updated_at: NOW })
        .returning('id')
        .executeTakeFirstOrThrow();
      await t.server.db.deleteFrom('products').where('id', '=', ghost.id).execute();
      const texts: string[] = [];
      const stop = observeQueries(t.server.db, (text) => texts.push(text));
      const inStock = await get('/api/v2/products?in_stock=true&category=chairs&facets=category');
      stop();
      assert.ok(
        texts.some((text) => /from "product_counts"/.test(text) && /group by "category"/.test(text)),
        texts.join('\n'),
      );
      assert.deepEqual(inStock.facets, {
        category: [
          { value: 'Tools', count: 2 },
          { value: 'garden', count: 2 },
          { value: 'lighting', count: 2 },
          { value: 'chairs', count: 1 },
        ],
      });
      assert.deepEqual((await get('/api/v2/products?facets=category')).facets, { category: all });
      assert.equal((await refusal('/api/v2/products?facets=price')).status, 422);
      answersByDialect.set(dialect.name, [
        await get('/api/v2/products?facets=category&stock[gte]=2&sort=-price'),
        await get('/api/v1/products/aggregate?groupBy=category,created_at:week&measures=sum(price),avg(stock)'),
        await get('/api/v2/products/aggregate?groupBy=createdAt:day&sort=-max(price)&measures=max(price)'),
      ]);
    });
  });
}

describe('products aggregates on both databases', () => {
  it('give the same answers for the same data', (context) => {
    if (answersByDialect.size < 2) return context.skip('needs both databases');
    assert.deepEqual(answersByDialect.get('postgres'), answersByDialect.get('sqlite'));
  });
});
