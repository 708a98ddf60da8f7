import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { insertCatalogue, type CatalogueEntry } from '../../../test/support/products.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** A small catalogue with known prices at cent boundaries, ties, and names full of LIKE wildcards. */
const CATALOGUE: CatalogueEntry[] = [
  ['Alpha Hammer', 'tools', 1000, 5],
  ['beta saw', 'tools', 1999, 0],
  ['Gamma Drill', 'tools', 1999, 3],
  ['50% Off Widget', 'toys', 500, 10],
  ['50 Percent Widget', 'toys', 7, 1],
  ['under_score item', 'toys', 29, 0],
  ['underXscore item', 'toys', 2500, 2],
  ['Back\\slash thing', 'books', 100, 1],
  ["O'Brien's Guide", 'books', 4250, 4],
  ['ALPHA Book', 'books', 1000, 0],
];

interface Item {
  id: number;
  name: string;
  category: string;
  price: number;
  stock: number;
  created_at: string;
}

const ids = (body: { data: Item[] }) => body.data.map((p) => p.id);
const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

for (const dialect of DIALECTS) {
  describe(`products list (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    /** Ids in insertion order: CATALOGUE[i] has id all[i]. */
    let all: number[];
    let rows: (Item & { cents: number })[];

    const list = async (query: string) => {
      const res = await t.request('GET', `/api/products${query ? `?${query}` : ''}`);
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as { data: Item[]; pagination: Record<string, number | boolean | string | null> };
    };
    const idsWhere = (keep: (row: (typeof rows)[number]) => boolean) => rows.filter(keep).map((r) => r.id);

    before(async () => {
      t = await startTestServer(dialect);
      // Created in an order unlike the ids' (the 3rd newest first, etc.).
      const inserted = await insertCatalogue(t.server.db, CATALOGUE);
      all = inserted.map((r) => r.id);
      rows = inserted.map(({ createdAt, ...row }) => ({ ...row, price: row.cents / 100, created_at: createdAt }));
    });
    after(() => t?.close());

    describe('paging and the envelope', () => {
      it('needs no token and answers the page envelope with defaults page 1, limit 20, ascending id', async () => {
        const body = await list('');
        assert.deepEqual(body.pagination, {
          page: 1,
          limit: 20,
          total: 10,
          totalPages: 1,
          hasNext: false,
          hasPrev: false,
          nextCursor: null,
        });
        assert.deepEqual(ids(body), all);
      });

      it('computes totalPages, hasNext (page·limit < total) and hasPrev (page > 1)', async () => {
        const middle = await list('limit=3&page=2');
        assert.deepEqual(
          { ...middle.pagination, nextCursor: typeof middle.pagination.nextCursor },
          { page: 2, limit: 3, total: 10, totalPages: 4, hasNext: true, hasPrev: true, nextCursor: 'string' },
        );
        assert.deepEqual(ids(middle), all.slice(3, 6));
        const last = await list('limit=3&page=4');
        assert.deepEqual(last.pagination, {
          page: 4,
          limit: 3,
          total: 10,
          totalPages: 4,
          hasNext: false,
          hasPrev: true,
          nextCursor: null,
        });
        assert.deepEqual(ids(last), all.slice(9));
        const exact = await list('limit=5&page=2');
        assert.equal(exact.pagination.hasNext, false);
        const beyond = await list('limit=5&page=9');
        assert.deepEqual(beyond.data, []);
        assert.equal(beyond.pagination.hasNext, false);
        assert.equal(beyond.pagination.total, 10);
      });

      it('raises page 0 and negative pages to 1', async () => {
        for (const page of ['0', '-3']) {
          const body = await list(`page=${page}&limit=2`);
          assert.equal(body.pagination.page, 1);
          assert.equal(body.pagination.hasPrev, false);
          assert.deepEqual(ids(body), all.slice(0, 2));
        }
      });

      it('caps limit 1000 at 100 and raises limit 0 and negative limits to 1', async () => {
        assert.equal((await list('limit=1000')).pagination.limit, 100);
        for (const limit of ['0', '-5']) {
          const body = await list(`limit=${limit}`);
          assert.equal(body.pagination.limit, 1);
          assert.equal(body.pagination.totalPages, 10);
          assert.deepEqual(ids(body), all.slice(0, 1));
        }
      });

      it('lets a zero-based offset override page', async () => {
        const body = await list('limit=3&offset=2&page=5');
        assert.deepEqual(ids(body), all.slice(2, 5));
        assert.equal(body.pagination.limit, 3);
        const aligned = await list('limit=3&offset=6');
        assert.equal(aligned.pagination.page, 3);
        assert.deepEqual(ids(aligned), all.slice(6, 9));
      });

      it('answers an empty page for an offset beyond the end, still with the total', async () => {
        const body = await list('offset=50');
        assert.deepEqual(body.data, []);
        assert.equal(body.pagination.total, 10);
        assert.equal(body.pagination.hasNext, false);
      });

      it('answers 422 naming the parameter when a number is not a number', async () => {
        for (const [query, field] of [
          ['page=abc', 'page'],
          ['limit=ten', 'limit'],
          ['limit=1.5', 'limit'],
          ['offset=x', 'offset'],
          ['min_price=cheap', 'min_price'],
          ['max_price=NaN', 'max_price'],
          ['max_price=1,2', 'max_price'],
        ]) {
          const res = await t.request('GET', `/api/products?${query}`);
          assert.equal(res.status, 422, query);
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            res.body.error.details.some((d: { field: string }) => d.field === field),
            `${query}: ${res.text}`,
          );
        }
      });
    });

    describe('filters', () => {
      it('filters category by exact equality', async () => {
        assert.deepEqual(
          ids(await list('category=tools')),
          idsWhere((r) => r.category === 'tools'),
        );
        for (const category of ['TOOLS', 'tool', 'to%25', '']) {
          const body = await list(`category=${category}`);
          assert.deepEqual(body.data, [], category);
          assert.equal(body.pagination.total, 0);
        }
      });

      it('includes both price bounds at exact cent boundaries', async () => {
        assert.deepEqual(
          ids(await list('min_price=19.99')),
          idsWhere((r) => r.cents >= 1999),
        );
        assert.deepEqual(
          ids(await list('min_price=19.991')),
          idsWhere((r) => r.cents >= 2000),
        );
        assert.deepEqual(
          ids(await list('max_price=0.07')),
          idsWhere((r) => r.cents <= 7),
        );
        assert.deepEqual(ids(await list('max_price=0.069')), []);
        assert.deepEqual(
          ids(await list('max_price=0.29')),
          idsWhere((r) => r.cents <= 29),
        );
        assert.deepEqual(
          ids(await list('min_price=10&max_price=10')),
          idsWhere((r) => r.cents === 1000),
        );
        assert.deepEqual(
          ids(await list('min_price=10.00&max_price=19.99')),
          idsWhere((r) => r.cents >= 1000 && r.cents <= 1999),
        );
        assert.deepEqual(ids(await list('min_price=20&max_price=10')), []);
        assert.deepEqual(ids(await list('min_price=-5&max_price=1e300')), all);
      });

      it('restricts to stock > 0 only for in_stock=true; any other value has no effect', async () => {
        const inStock = await list('in_stock=true');
        assert.deepEqual(
          ids(inStock),
          idsWhere((r) => r.stock > 0),
        );
        assert.equal(inStock.pagination.total, 7);
        for (const value of ['false', 'yes', 'TRUE', '1', '']) {
          const body = await list(`in_stock=${value}`);
          assert.deepEqual(ids(body), all, value);
          assert.equal(body.pagination.total, 10);
        }
      });

      it('searches a case-insensitive substring of the name', async () => {
        const expected = idsWhere((r) => r.name.toLowerCase().includes('alpha'));
        assert.equal(expected.length, 2);
        for (const text of ['alpha', 'ALPHA', 'aLpHa'])
          assert.deepEqual(ids(await list(`search=${text}`)), expected, text);
        assert.deepEqual(
          ids(await list('search=ha hamm')),
          idsWhere((r) => r.name === 'Alpha Hammer'),
        );
        assert.deepEqual(ids(await list('search=')), all);
      });

      it('matches %, _, backslash and quotes in the search text literally', async () => {
        const only = (name: string) => idsWhere((r) => r.name === name);
        assert.deepEqual(ids(await list(`search=${encodeURIComponent('%')}`)), only('50% Off Widget'));
        assert.deepEqual(ids(await list(`search=${encodeURIComponent('50%')}`)), only('50% Off Widget'));
        assert.deepEqual(ids(await list('search=_')), only('under_score item'));
        assert.deepEqual(ids(await list('search=under_')), only('under_score item'));
        assert.deepEqual(ids(await list(`search=${encodeURIComponent('\\')}`)), only('Back\\slash thing'));
        assert.deepEqual(ids(await list(`search=${encodeURIComponent("o'brien")}`)), only("O'Brien's Guide"));
        assert.deepEqual(ids(await list(`search=${encodeURIComponent('"')}`)), []);
      });

      it('combines filters with AND', async () => {
        const body = await list('category=tools&in_stock=true&min_price=10&max_price=19.99&search=a');
        assert.deepEqual(
          ids(body),
          idsWhere(
            (r) =>
              r.category === 'tools' &&
              r.stock > 0 &&
              r.cents >= 1000 &&
              r.cents <= 1999 &&
              r.name.toLowerCase().includes('a'),
          ),
        );
        assert.equal(body.pagination.total, 2);
      });
    });

    describe('sort', () => {
      const sorted = (compare: (a: (typeof rows)[number], b: (typeof rows)[number]) => number) =>
        [...rows].sort((a, b) => compare(a, b) || a.id - b.id).map((r) => r.id);

      it('sorts by price either way, ties broken by ascending id', async () => {
        assert.deepEqual(
          ids(await list('sort=price')),
          sorted((a, b) => a.cents - b.cents),
        );
        assert.deepEqual(
          ids(await list('sort=-price')),
          sorted((a, b) => b.cents - a.cents),
        );
      });

      it('sorts by name either way and by created_at ascending', async () => {
        assert.deepEqual(
          ids(await list('sort=name')),
          sorted((a, b) => byCodeUnits(a.name, b.name)),
        );
        assert.deepEqual(
          ids(await list('sort=-name')),
          sorted((a, b) => byCodeUnits(b.name, a.name)),
        );
        assert.deepEqual(
          ids(await list('sort=created_at')),
          sorted((a, b) => byCodeUnits(a.created_at, b.created_at)),
        );
        assert.notDeepEqual(ids(await list('sort=created_at')), all);
      });

      it('applies several keys in order', async () => {
        assert.deepEqual(
          ids(await list('sort=-price,name')),
          sorted((a, b) => b.cents - a.cents || byCodeUnits(a.name, b.name)),
        );
        assert.deepEqual(
          ids(await list('sort=price,-name')),
          sorted((a, b) => a.cents - b.cents || byCodeUnits(b.name, a.name)),
        );
      });

      it('sorts by ascending id when any value is outside the whitelist, even mixed with allowed ones', async () => {
        for (const sort of ['id', '-id', 'stock', '-created_at', 'price,bogus', '-price,stock', 'Price', 'name desc']) {
          assert.deepEqual(ids(await list(`sort=${encodeURIComponent(sort)}`)), all, sort);
        }
      });

      it('pages through a sorted list without gaps or repeats', async () => {
        const pages = await Promise.all([1, 2, 3, 4].map((page) => list(`sort=-price&limit=3&page=${page}`)));
        assert.deepEqual(
          pages.flatMap(ids),
          sorted((a, b) => b.cents - a.cents),
        );
      });
    });

    describe('fields and representation', () => {
      it('serves price as a number with at most two decimals, and the v1 field names', async () => {
        const body = await list('sort=price&limit=3');
        assert.deepEqual(
          body.data.map((p) => p.price),
          [0.07, 0.29, 1],
        );
        const [first] = body.data as unknown as Record<string, unknown>[];
        assert.deepEqual(Object.keys(first!).sort(), [
          '_links',
          'category',
          'created_at',
          'description',
          'id',
          'image',
          'name',
          'price',
          // DECISIONS §18: products gain the optional natural key `sku` (null when unset), in v1 as an addition.
          'sku',
          'stock',
          'updatedAt',
        ]);
        assert.deepEqual(first!._links, { self: { href: `/api/products/${first!.id}` } });
      });

      it('restricts fields with `fields`, always keeping id', async () => {
        const body = await list('fields=name,price');
        for (const item of body.data) assert.deepEqual(Object.keys(item).sort(), ['_links', 'id', 'name', 'price']);
        const onlyId = await list('fields=id');
        for (const item of onlyId.data) assert.deepEqual(Object.keys(item).sort(), ['_links', 'id']);
        const noId = await list('fields=created_at');
        for (const item of noId.data) assert.deepEqual(Object.keys(item).sort(), ['_links', 'created_at', 'id']);
      });

      it('answers 422 naming `fields` for an unknown field name', async () => {
        for (const fields of ['name,secret', 'createdAt', 'price_cents', 'name;drop table products', '*']) {
          const res = await t.request('GET', `/api/products?fields=${encodeURIComponent(fields)}`);
          assert.equal(res.status, 422, fields);
          assert.equal(res.body.error.details[0].field, 'fields');
        }
      });
    });

    describe('caching', () => {
      it('carries a strong ETag and public Cache-Control, not varying by Authorization; If-None-Match gives 304', async () => {
        const res = await t.request('GET', '/api/products?category=toys');
        assert.match(res.headers.get('etag') ?? '', /^"[^"]+"$/);
        assert.equal(res.headers.get('cache-control'), 'public, max-age=60');
        assert.doesNotMatch(res.headers.get('vary') ?? '', /Authorization/i);
        const again = await t.request('GET', '/api/products?category=toys', {
          headers: { 'if-none-match': res.headers.get('etag')! },
        });
        assert.equal(again.status, 304);
        assert.equal(again.text, '');
      });
    });

    describe('injection attempts', () => {
      it('treats SQL in every parameter as plain data and keeps the table intact', async () => {
        const attacks = ["'; DROP TABLE products; --", "' OR '1'='1", '1) OR (1=1', 'name; DELETE FROM products'];
        for (const attack of attacks) {
          const value = encodeURIComponent(attack);
          assert.deepEqual((await list(`search=${value}`)).data, [], `search ${attack}`);
          assert.deepEqual((await list(`category=${value}`)).data, [], `category ${attack}`);
          assert.deepEqual(ids(await list(`sort=${value}`)), all, `sort ${attack}`);
          assert.equal((await t.request('GET', `/api/products?fields=${value}`)).status, 422, `fields ${attack}`);
          assert.equal((await t.request('GET', `/api/products?min_price=${value}`)).status, 422, `min_price ${attack}`);
        }
        assert.equal((await list('')).pagination.total, 10);
      });
    });
  });
}
