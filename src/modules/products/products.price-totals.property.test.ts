import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Db } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { priceCounterMismatches } from '../../../test/support/price-counts.ts';
import type { ProductFilter, ProductSort } from './product.ts';
import { countProducts, listProductsPage } from './products.list.statements.ts';

const CATEGORIES = ['a', 'b', 'c'] as const;
const category = fc.constantFrom(...CATEGORIES);
/** Mostly the first few $5 buckets and their edges, sometimes far away. */
const priceCents = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2600 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 499, 500, 501, 999, 1000, 2500, 10_000_000_000, Number.MAX_SAFE_INTEGER) },
);
const boundCents = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -50, max: 2650 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, 499, 500, 999, 1000, 1499, 9_007_199_254_740_000, Number.MAX_SAFE_INTEGER),
  },
);
const stock = fc.constantFrom(0, 0, 1, 5);
const pick = fc.nat();

/** One statement on products, some touching many rows at once (the PostgreSQL triggers are per statement). */
const write = fc.oneof(
  fc.record({
    kind: fc.constant('insert' as const),
    rows: fc.array(fc.record({ category, priceCents, stock }), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('setPrice' as const), pick, priceCents }),
  fc.record({ kind: fc.constant('shiftPrices' as const), category, deltaCents: fc.integer({ min: -1200, max: 1200 }) }),
  fc.record({ kind: fc.constant('setCategory' as const), pick, category }),
  fc.record({ kind: fc.constant('setStock' as const), pick, stock }),
  fc.record({ kind: fc.constant('restockCategory' as const), category }),
  fc.record({ kind: fc.constant('emptyStockBelow' as const), priceCents }),
  fc.record({ kind: fc.constant('delete' as const), pick }),
  fc.record({ kind: fc.constant('deleteCategory' as const), category }),
);
type Write = typeof write extends fc.Arbitrary<infer T> ? T : never;

const filter: fc.Arbitrary<ProductFilter> = fc.record({
  category: fc.option(fc.constantFrom(...CATEGORIES, 'none'), { nil: undefined }),
  minPriceCents: fc.option(boundCents, { nil: undefined }),
  maxPriceCents: fc.option(boundCents, { nil: undefined }),
  inStock: fc.boolean(),
});

async function apply(db: Db, w: Write): Promise<void> {
  const ids = (await db.selectFrom('products').select('id').orderBy('id').execute()).map((r) => r.id);
  const one = (n: number) => ids[n % ids.length]!;
  const at = new Date().toISOString();
  switch (w.kind) {
    case 'insert':
      await db
        .insertInto('products')
        .values(
          w.rows.map((r, i) => ({
            name: `P ${i}`,
            category: r.category,
            price_cents: r.priceCents,
            stock: r.stock,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      return;
    case 'shiftPrices':
      await db
        .updateTable('products')
        .set((eb) => ({ price_cents: eb('price_cents', '+', w.deltaCents) }))
        .where('category', '=', w.category)
        .where('price_cents', '>=', -w.deltaCents)
        .where('price_cents', '<=', 1_000_000_000_000 - w.deltaCents)
        .execute();
      return;
    case 'restockCategory':
      // Products already in stock stay in stock: a net-zero change for their counters.
      await db
        .updateTable('products')
        .set((eb) => ({ stock: eb('stock', '+', 1) }))
        .where('category', '=', w.category)
        .execute();
      return;
    case 'emptyStockBelow':
      await db.updateTable('products').set({ stock: 0 }).where('price_cents', '<', w.priceCents).execute();
      return;
    case 'deleteCategory':
      await db.deleteFrom('products').where('category', '=', w.category).execute();
      return;
  }
  if (ids.length === 0) return;
  const target = one(w.pick);
  if (w.kind === 'delete') await db.deleteFrom('products').where('id', '=', target).execute();
  else {
    const changes =
      w.kind === 'setPrice'
        ? { price_cents: w.priceCents }
        : w.kind === 'setCategory'
          ? { category: w.category }
          : { stock: w.stock };
    await db.updateTable('products').set(changes).where('id', '=', target).execute();
  }
}

/** A catalogue made by these writes alone. */
async function replay(db: Db, writes: Write[]): Promise<void> {
  await db.deleteFrom('products').execute();
  for (const w of writes) await apply(db, w);
}

/** The plain count the counters must always agree with. */
async function countStar(db: Db, f: ProductFilter): Promise<number> {
  let query = db.selectFrom('products').select((eb) => eb.fn.countAll<number>().as('n'));
  if (f.category !== undefined) query = query.where('category', '=', f.category);
  if (f.minPriceCents !== undefined) query = query.where('price_cents', '>=', f.minPriceCents);
  if (f.maxPriceCents !== undefined) query = query.where('price_cents', '<=', f.maxPriceCents);
  if (f.inStock) query = query.where('stock', '>', 0);
  return Number((await query.executeTakeFirstOrThrow()).n);
}

const listQuery = fc.record({
  filter: fc.record({
    category: fc.option(fc.constantFrom(...CATEGORIES, 'none'), { nil: undefined }),
    minPriceCents: fc.option(boundCents, { nil: undefined }),
    maxPriceCents: fc.option(boundCents, { nil: undefined }),
    inStock: fc.boolean(),
    search: fc.option(fc.constantFrom('p', ' 1', '2', 'x', '%'), { nil: undefined }),
  }),
  sort: fc.constantFrom(
    [],
    [{ key: 'price', direction: 'asc' }],
    [{ key: 'price', direction: 'desc' }],
  ) as fc.Arbitrary<ProductSort[]>,
  limit: fc.integer({ min: 1, max: 4 }),
  offset: fc.integer({ min: 0, max: 8 }),
});

/** The page computed in JavaScript over every row: what the one cached statement must return. */
async function referencePage(db: Db, q: typeof listQuery extends fc.Arbitrary<infer T> ? T : never) {
  const all = await db.selectFrom('products').select(['id', 'name', 'category', 'price_cents', 'stock']).execute();
  const f = q.filter;
  const matching = all
    .filter((r) => f.category === undefined || r.category === f.category)
    .filter((r) => f.minPriceCents === undefined || Number(r.price_cents) >= f.minPriceCents)
    .filter((r) => f.maxPriceCents === undefined || Number(r.price_cents) <= f.maxPriceCents)
    .filter((r) => !f.inStock || r.stock > 0)
    .filter((r) => f.search === undefined || r.name.toLowerCase().includes(f.search))
    .sort((a, b) => {
      const direction = q.sort[0]?.direction === 'desc' ? -1 : 1;
      const byPrice = q.sort.length === 0 ? 0 : (Number(a.price_cents) - Number(b.price_cents)) * direction;
      return byPrice || a.id - b.id;
    });
  return { ids: matching.slice(q.offset, q.offset + q.limit).map((r) => r.id), total: matching.length };
}

for (const dialect of DIALECTS) {
  describe(`products price totals, property (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    it('equal count(*) for any filter after any sequence of product writes', async () => {
      const db = t.server.db;
      await fc.assert(
        fc.asyncProperty(
          fc.array(write, { maxLength: 10 }),
          fc.array(filter, { minLength: 1, maxLength: 8 }),
          async (writes, filters) => {
            await replay(db, writes);
            for (const f of filters)
              assert.equal(await countProducts(db, f), await countStar(db, f), JSON.stringify(f));
            assert.equal(await priceCounterMismatches(db), 0);
          },
        ),
        { numRuns: 200 },
      );
    });

    it('list pages (rows and total, one cached statement per shape) equal a page computed over every row', async () => {
      const db = t.server.db;
      await fc.assert(
        fc.asyncProperty(
          fc.array(write, { maxLength: 8 }),
          fc.array(listQuery, { minLength: 1, maxLength: 8 }),
          async (writes, queries) => {
            await replay(db, writes);
            for (const q of queries) {
              const page = await listProductsPage(db, { ...q.filter, sort: q.sort, limit: q.limit, offset: q.offset });
              assert.deepEqual(
                { ids: page.rows.map((r) => r.id), total: page.total },
                await referencePage(db, q),
                JSON.stringify(q),
              );
            }
          },
        ),
        { numRuns: 150 },
      );
    });
  });
}
