import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import createClient from 'openapi-fetch';
import { generateOpenApiDocuments } from '../../contract-documents.ts';
import type { paths } from '../../../test/client/api-v2.generated.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { insertCatalogue, type CatalogueEntry, type CatalogueRow } from '../../../test/support/products.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** Names with LIKE wildcards and mixed case, prices at cent boundaries and ties, stock at zero and above. */
const CATALOGUE: CatalogueEntry[] = [
  ['Steel Hammer', 'tools', 1000, 5],
  ['steel saw', 'tools', 1999, 0],
  ['Gamma Drill', 'tools', 1999, 3],
  ['50% Off Widget', 'toys', 500, 10],
  ['Stainless STEEL Spoon', 'kitchen', 7, 1],
  ['under_score item', 'toys', 29, 0],
  ['Brass Kettle', 'kitchen', 2500, 2],
  ['Atlas', 'books', 100, 1],
  ['Zebra Book', 'books', 4250, 4],
  ['Copper Pan', 'kitchen', 1000, 0],
  ['Yo-yo', 'toys', 1999, 7],
];

type Row = CatalogueRow;

type Page = { data: Record<string, unknown>[]; pagination: Record<string, unknown> };

/** DECISIONS §12 on the products list: the grammar's filters beside the seed's, counts and cursors, v1 and v2. */
for (const dialect of DIALECTS) {
  describe(`products list queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let rows: Row[];

    const list = async (query: string, prefix = '/api/v2'): Promise<Page> => {
      const res = await t.request('GET', `${prefix}/products?${query}`);
      assert.equal(res.status, 200, `${prefix} ${query}: ${res.text}`);
      return res.body as Page;
    };
    const ids = async (query: string, prefix = '/api/v2') =>
      (await list(`limit=100&${query}`, prefix)).data.map((p) => p.id as number);
    const where = (keep: (row: Row) => boolean) => rows.filter(keep).map((r) => r.id);
    const refused = async (query: string, field: string, prefix = '/api/v2') => {
      const res = await t.request('GET', `${prefix}/products?${query}`);
      assert.equal(res.status, 422, `${prefix} ${query}: ${res.text}`);
      assert.equal(res.body.error.code, 'VALIDATION_ERROR');
      assert.ok(
        res.body.error.details.some((d: { field: string }) => d.field === field),
        `${query} names ${field}: ${res.text}`,
      );
    };

    before(async () => {
      t = await startTestServer(dialect);
      // Created in an order unlike the ids'; the 1st and the 11th at the same time.
      rows = await insertCatalogue(t.server.db, CATALOGUE);
    });
    after(() => t?.close());

    it('filters price in currency units with every operator', async () => {
      assert.deepEqual(
        await ids('price=19.99'),
        where((r) => r.cents === 1999),
      );
      assert.deepEqual(
        await ids('price[eq]=10'),
        where((r) => r.cents === 1000),
      );
      assert.deepEqual(
        await ids('price[ne]=19.99'),
        where((r) => r.cents !== 1999),
      );
      assert.deepEqual(
        await ids('price[gt]=10'),
        where((r) => r.cents > 1000),
      );
      assert.deepEqual(
        await ids('price[gte]=10'),
        where((r) => r.cents >= 1000),
      );
      assert.deepEqual(
        await ids('price[lt]=0.29'),
        where((r) => r.cents < 29),
      );
      assert.deepEqual(
        await ids('price[lte]=0.29'),
        where((r) => r.cents <= 29),
      );
      assert.deepEqual(
        await ids('price[in]=1,42.5,0.07'),
        where((r) => [100, 4250, 7].includes(r.cents)),
      );
    });

    it('filters stock, name, category and the creation time with their operators', async () => {
      assert.deepEqual(
        await ids('stock=0'),
        where((r) => r.stock === 0),
      );
      assert.deepEqual(
        await ids('stock[gte]=4'),
        where((r) => r.stock >= 4),
      );
      assert.deepEqual(
        await ids('stock[lt]=2&stock[ne]=0'),
        where((r) => r.stock === 1),
      );
      assert.deepEqual(
        await ids('stock[in]=2,3'),
        where((r) => r.stock === 2 || r.stock === 3),
      );
      assert.deepEqual(
        await ids('name[contains]=STEEL'),
        where((r) => r.name.toLowerCase().includes('steel')),
      );
      assert.deepEqual(
        await ids(`name[contains]=${encodeURIComponent('0%')}`),
        where((r) => r.name.includes('0%')),
      );
      assert.deepEqual(
        await ids('name[contains]=_'),
        where((r) => r.name.includes('_')),
      );
      assert.deepEqual(
        await ids('name=Atlas'),
        where((r) => r.name === 'Atlas'),
      );
      assert.deepEqual(
        await ids('name[gte]=Y'),
        where((r) => r.name >= 'Y'),
      );
      assert.deepEqual(
        await ids('name[in]=Atlas,Yo-yo'),
        where((r) => ['Atlas', 'Yo-yo'].includes(r.name)),
      );
      assert.deepEqual(
        await ids('category[ne]=tools'),
        where((r) => r.category !== 'tools'),
      );
      assert.deepEqual(
        await ids('category[in]=books,toys'),
        where((r) => ['books', 'toys'].includes(r.category)),
      );
      assert.deepEqual(
        await ids('category[eq]=kitchen'),
        where((r) => r.category === 'kitchen'),
      );
      const noon = rows.map((r) => r.createdAt).sort()[5]!;
      assert.deepEqual(
        await ids(`createdAt[gte]=${noon}`),
        where((r) => r.createdAt >= noon),
      );
      assert.deepEqual(
        await ids(`created_at[lt]=${noon}`, '/api/v1'),
        where((r) => r.createdAt < noon),
      );
      assert.deepEqual(
        await ids(`createdAt=${noon}`),
        where((r) => r.createdAt === noon),
      );
    });

    it('keeps the seed’s filters as they were, combined with the operators by AND', async () => {
      // min_price rounds a bound between cents inwards, as the seed's parameter always did.
      assert.deepEqual(
        await ids('min_price=19.991'),
        where((r) => r.cents >= 2000),
      );
      assert.deepEqual(
        await ids('max_price=1e300&min_price=-5'),
        where(() => true),
      );
      assert.deepEqual(
        await ids('in_stock=yes'),
        where(() => true),
      );
      assert.deepEqual(
        await ids('search='),
        where(() => true),
      );
      assert.deepEqual(await ids(`category=${'x'.repeat(300)}`), []);
      assert.deepEqual(
        await ids('category=tools&in_stock=true&search=steel&price[lte]=19.99&stock[ne]=3'),
        where((r) => r.category === 'tools' && r.stock > 0 && /steel/i.test(r.name) && r.cents <= 1999),
      );
      assert.deepEqual(
        await ids('min_price=5&price[lt]=20&category[ne]=toys&name[contains]=e'),
        where((r) => r.cents >= 500 && r.cents < 2000 && r.category !== 'toys' && /e/i.test(r.name)),
      );
    });

    it('keeps the seed’s five sort values and its fallback to ascending id, never a 422', async () => {
      const byPriceDesc = [...rows].sort((a, b) => b.cents - a.cents || a.id - b.id).map((r) => r.id);
      assert.deepEqual(await ids('sort=-price&stock[gte]=0'), byPriceDesc);
      for (const sort of ['stock', '-stock', 'id', '-id', 'price,stock', 'created_at']) {
        assert.deepEqual(
          await ids(`sort=${sort}`),
          where(() => true),
          `v2 sort=${sort}`,
        );
      }
      assert.deepEqual(
        await ids('sort=-created_at', '/api/v1'),
        where(() => true),
      );
      const byCreated = [...rows].sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0));
      assert.deepEqual(
        await ids('sort=created_at', '/api/v1'),
        byCreated.map((r) => r.id),
      );
    });

    it('answers 422 naming the parameter for an unknown field or operator, or an ill-typed value', async () => {
      for (const [query, field, prefix] of [
        ['price[gt]=abc', 'price[gt]'],
        ['price[gt]=1.005', 'price[gt]'],
        ['price[lte]=1e300', 'price[lte]'],
        ['price[in]=1,x', 'price[in]'],
        ['price[contains]=1', 'price[contains]'],
        ['stock[gt]=1.5', 'stock[gt]'],
        ['stock=many', 'stock'],
        ['stock[null]=true', 'stock[null]'],
        ['name[contains]=', 'name[contains]'],
        ['name[like]=a', 'name[like]'],
        ['category[gt]=a', 'category[gt]'],
        ['colour[eq]=red', 'colour[eq]'],
        ['createdAt[gt]=yesterday', 'createdAt[gt]'],
        ['created_at[gt]=2026-01-01T00:00:00Z', 'created_at[gt]'],
        ['createdAt[gt]=2026-01-01T00:00:00Z', 'createdAt[gt]', '/api/v1'],
        ['created_at[gt]=2026-01-01', 'created_at[gt]', '/api/v1'],
        ['count=all', 'count'],
        ['cursor=not-a-cursor', 'cursor'],
      ] as const) {
        await refused(query, field, prefix);
      }
    });

    it('leaves the total out with count=none and finds hasNext by reading one more', async () => {
      const none = await list('limit=4&count=none&stock[gte]=1');
      assert.equal(none.pagination.total, undefined);
      assert.equal(none.pagination.totalPages, undefined);
      assert.equal(none.pagination.hasNext, true);
      const last = await list('limit=4&page=2&count=none&stock[gte]=1');
      assert.equal(last.data.length, where((r) => r.stock >= 1).length - 4);
      assert.equal(last.pagination.hasNext, false);
      assert.equal(last.pagination.nextCursor, null);
      const estimated = await list('limit=2&count=estimated&name[contains]=e');
      assert.equal(estimated.pagination.total, where((r) => /e/i.test(r.name)).length);
      assert.equal(estimated.pagination.totalEstimated, undefined);
    });

    it('answers the exact total from the counters where the seed’s filters did, and counts otherwise', async () => {
      // Counters off by 1000 show which totals they answer (restored after).
      const shift = (by: number) =>
        sql`update product_counts set n = n + ${by} where category = 'kitchen' and in_stock = ${dialect.name === 'postgres' ? sql`true` : sql`1`}`.execute(
          t.server.db,
        );
      await shift(1000);
      try {
        const kitchenInStock = where((r) => r.category === 'kitchen' && r.stock > 0).length + 1000;
        const first = await list('limit=1&category=kitchen&in_stock=true');
        assert.equal(first.pagination.total, kitchenInStock);
        const next = await list(`limit=1&category=kitchen&in_stock=true&cursor=${first.pagination.nextCursor}`);
        assert.equal(next.pagination.total, kitchenInStock);
        assert.equal(
          (await list('limit=1&category[eq]=kitchen&stock[gt]=0&count=estimated')).pagination.total,
          kitchenInStock,
        );
        // Filters the counters cannot answer count the rows.
        const rowsCounted = where((r) => r.category === 'kitchen' && r.stock > 0 && r.stock !== 2).length;
        assert.equal((await list('limit=1&category=kitchen&in_stock=true&stock[ne]=2')).pagination.total, rowsCounted);
      } finally {
        await shift(-1000);
      }
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks the list by cursor to the end, each product once, in order (${prefix})`, async () => {
        const created = prefix === '/api/v1' ? 'created_at' : 'createdAt';
        for (const query of [
          '',
          'sort=-price',
          'sort=price,-name',
          'sort=name',
          `sort=${created}`,
          'category=toys&sort=-name',
          'min_price=5&in_stock=true',
          'search=e&count=none',
          `stock[lte]=3&sort=-price,${created}&count=estimated`,
          ...(prefix === '/api/v2' ? ['sort=-createdAt', 'price[ne]=10&sort=-createdAt,name'] : []),
        ]) {
          const whole = (await list(`limit=100&${query}`, prefix)).data.map((p) => p.id);
          const walked: unknown[] = [];
          let page = await list(`limit=3&${query}`, prefix);
          for (let n = 1; ; n += 1) {
            assert.equal(page.pagination.page, n, query);
            walked.push(...page.data.map((p) => p.id));
            const next = page.pagination.nextCursor as string | null;
            if (next === null) break;
            page = await list(`limit=3&${query}&cursor=${next}`, prefix);
            assert.equal(page.pagination.hasPrev, true);
          }
          assert.deepEqual(walked, whole, `${prefix} ${query}`);
        }
      });
    }

    it('pages with the typed client generated from the v2 document, through filters, count and cursor', async () => {
      const client = createClient<paths>({ baseUrl: `${t.url}/api/v2` });
      const query = { 'price[gte]': 5, 'stock[in]': '0,1,2', count: 'none', sort: '-createdAt', limit: 2 } as const;
      const first = await client.GET('/products', { params: { query } });
      assert.equal(first.data?.pagination.total, undefined);
      const cursor = first.data!.pagination.nextCursor!;
      const next = await client.GET('/products', { params: { query: { ...query, cursor } } });
      const expected = [...rows]
        .filter((r) => r.cents >= 500 && r.stock <= 2)
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id - b.id))
        .map((r) => r.id);
      assert.deepEqual(
        [...first.data!.data, ...next.data!.data].map((p) => p.id),
        expected.slice(0, 4),
      );
    });

    it('refuses a cursor sent with other filters or another sort, whatever the parameters’ order', async () => {
      const first = await list('limit=2&category=toys&sort=-price');
      const cursor = first.pagination.nextCursor as string;
      const again = await list(`sort=-price&cursor=${cursor}&limit=2&category=toys`);
      assert.equal(again.data.length, 1);
      await refused(`limit=2&category=books&sort=-price&cursor=${cursor}`, 'cursor');
      await refused(`limit=2&category=toys&sort=price&cursor=${cursor}`, 'cursor');
      await refused(`limit=2&category=toys&sort=-price&stock[gt]=0&cursor=${cursor}`, 'cursor');
      await refused(`limit=2&category=toys&sort=-price&cursor=${cursor.slice(0, -3)}`, 'cursor');
    });
  });
}

describe('the products list in the OpenAPI documents', () => {
  it('describes each version’s filters, count and cursor: created_at[...] in v1, createdAt[...] in v2', async () => {
    const documents = (await generateOpenApiDocuments()) as Map<1 | 2, { paths: Record<string, any> }>; // eslint-disable-line @typescript-eslint/no-explicit-any
    for (const [version, own, other] of [
      [1, 'created_at', 'createdAt'],
      [2, 'createdAt', 'created_at'],
    ] as const) {
      const operation = documents.get(version)!.paths['/products'].get;
      const names = (operation.parameters as { name: string }[]).map((p) => p.name);
      for (const name of [
        'min_price',
        'in_stock',
        'search',
        'price[gte]',
        'price[in]',
        'stock[lt]',
        'name[contains]',
        'category[in]',
        `${own}[gte]`,
        'count',
        'cursor',
      ]) {
        assert.ok(names.includes(name), `v${version} documents ${name}`);
      }
      assert.ok(!names.some((name) => name?.startsWith(other)), `v${version} has no ${other} parameter`);
      assert.ok(!names.includes('price[contains]') && !names.includes('category[gt]'));
    }
  });
});
