import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { createDatabase, observeQueries } from '../../core/db/database.ts';
import * as initialSchema from '../../core/db/migrations/0001-initial-schema.ts';
import * as productsList from '../../core/db/migrations/0002-products-list.ts';
import * as productPriceCounts from '../../core/db/migrations/0003-product-price-counts.ts';
import * as counterStorage from '../../core/db/migrations/0004-counter-storage.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { lowerBoundCents, upperBoundCents } from './product.ts';
import { priceCounterMismatches } from '../../../test/support/price-counts.ts';

/** Prices around the $5 bucket edges, plus the extremes. */
const PRICES = [0, 0.01, 4.99, 5, 5.01, 9.99, 10, 10.01, 14.99, 15, 24.99, 25, 100, 999.99, 100_000_000];

/** Price filters (in the API's units) whose total goes through the bucket counters, or around them. */
const PRICE_QUERIES = [
  'min_price=5&max_price=15', // both bounds on a bucket start: one cent of edge at the top
  'min_price=5&max_price=14.99', // exactly two whole buckets, no edge
  'min_price=10.01&max_price=24.99', // cent precision: a partial bucket at the bottom
  'min_price=4.99&max_price=10.01', // partial buckets at both ends
  'min_price=5.005&max_price=15.004', // between cents: rounded inwards
  'min_price=10&max_price=10', // min = max on a bucket start
  'min_price=7&max_price=7', // min = max inside a bucket
  'min_price=9&max_price=8', // empty range
  'min_price=5.5&max_price=6', // inside one bucket
  'min_price=9.99&max_price=10.01', // across one bucket edge, no whole bucket
  'min_price=10.01', // only a minimum
  'max_price=10', // only a maximum
  'max_price=0',
  'min_price=-5&max_price=3',
  'max_price=10000000000000', // huge maximum
  'min_price=99999999&max_price=1e15',
  'min_price=1e15',
];
const SCOPES = ['', 'category=a&', 'in_stock=true&', 'category=b&in_stock=true&', 'category=nowhere&'];

interface Row {
  category: string;
  stock: number;
  price_cents: number;
}

/** The rows a list query matches, by the rules of the list (inclusive bounds compared in cents). */
function matches(query: string, row: Row): boolean {
  const params = new URLSearchParams(query);
  const min = params.get('min_price');
  const max = params.get('max_price');
  return (
    (!params.has('category') || row.category === params.get('category')) &&
    (params.get('in_stock') !== 'true' || row.stock > 0) &&
    (min === null || row.price_cents >= lowerBoundCents(Number(min))) &&
    (max === null || row.price_cents <= upperBoundCents(Number(max)))
  );
}

for (const dialect of DIALECTS) {
  describe(`products list price totals (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
    });
    after(() => t?.close());

    async function assertPriceTotalsMatchRows(stage: string) {
      const rows = (
        await t.server.db.selectFrom('products').select(['category', 'stock', 'price_cents']).execute()
      ).map((r) => ({
        ...r,
        price_cents: Number(r.price_cents),
      }));
      for (const scope of SCOPES) {
        for (const price of PRICE_QUERIES) {
          const query = `${scope}${price}`;
          const res = await t.request('GET', `/api/products?${query}&limit=1`);
          assert.equal(res.status, 200, res.text);
          assert.equal(
            res.body.pagination.total,
            rows.filter((row) => matches(query, row)).length,
            `${stage}: ${query}`,
          );
        }
      }
      assert.equal(await priceCounterMismatches(t.server.db), 0, `${stage}: counters differ from a recount`);
    }

    const create = async (category: string, price: number, stock: number) => {
      const res = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name: `P ${category} ${price}`, category, price, stock },
      });
      assert.equal(res.status, 201, res.text);
      return res.body.id as number;
    };
    const patch = async (id: number, body: Record<string, unknown>) => {
      const res = await t.request('PATCH', `/api/products/${id}`, { token: t.adminToken, body });
      assert.equal(res.status, 200, res.text);
    };

    it('stay exact through inserts, batch inserts, price, category and stock changes, and deletes', async () => {
      const ids: number[] = [];
      for (const [i, price] of PRICES.entries()) ids.push(await create(i % 2 ? 'a' : 'b', price, i % 3));
      await assertPriceTotalsMatchRows('inserts');

      const at = new Date().toISOString();
      await t.server.db
        .insertInto('products')
        .values(
          Array.from({ length: 40 }, (_, i) => ({
            name: `Bulk ${i}`,
            category: i % 2 ? 'a' : 'b',
            price_cents: 450 + i * 37,
            stock: i % 4,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      await assertPriceTotalsMatchRows('batch insert');

      await patch(ids[4]!, { price: 14.99 }); // to another bucket
      await patch(ids[5]!, { price: 9.5 }); // within its bucket
      await patch(ids[6]!, { category: 'a', price: 25 }); // category and bucket at once
      await patch(ids[7]!, { category: 'b' });
      await patch(ids[8]!, { stock: 0 });
      await patch(ids[9]!, { stock: 7 });
      await patch(ids[10]!, { stock: 3, price: 5 });
      await assertPriceTotalsMatchRows('single changes');

      // Multi-row statements: every bulk row moves up a bucket, then the cheap ones run out of stock.
      await t.server.db
        .updateTable('products')
        .set((eb) => ({ price_cents: eb('price_cents', '+', 500) }))
        .where('name', 'like', 'Bulk%')
        .execute();
      await t.server.db.updateTable('products').set({ stock: 0 }).where('price_cents', '<', 1500).execute();
      await t.server.db
        .updateTable('products')
        .set({ category: 'a' })
        .where('category', '=', 'b')
        .where('stock', '>', 0)
        .execute();
      await assertPriceTotalsMatchRows('bulk changes');

      assert.equal((await t.request('DELETE', `/api/products/${ids[2]}`, { token: t.adminToken })).status, 204);
      await t.server.db
        .deleteFrom('products')
        .where('price_cents', '>=', 1000)
        .where('price_cents', '<', 2000)
        .execute();
      await assertPriceTotalsMatchRows('deletes');
    });

    it('reads the price-bucket counters instead of counting the whole range', async () => {
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (sql) => statements.push(sql));
      try {
        const res = await t.request('GET', '/api/products?category=a&min_price=1&max_price=500&sort=-price');
        assert.equal(res.status, 200, res.text);
      } finally {
        stop();
      }
      assert.ok(
        statements.some((sql) => sql.includes('"product_price_counts"')),
        statements.join('\n'),
      );
    });

    // The row versions (xmin) of the counters show which ones a statement wrote, and so locked. Only
    // PostgreSQL has row locks to contend on (SQLite serialises writers), and only it has xmin.
    if (dialect.name === 'postgres')
      it('lets an order that leaves its product in stock write (and lock) no price counter', async () => {
        const versions = async () =>
          (
            await sql<{
              key: string;
              version: string;
            }>`select category || '/' || in_stock || '/' || bucket as key, xmin::text as version
          from product_price_counts order by 1`.execute(t.server.db)
          ).rows;
        const product = await create('orders', 12.34, 2);
        const buyer = await t.createUser();
        const order = () =>
          t.request('POST', '/api/orders', {
            token: buyer.token,
            body: { items: [{ productId: product, quantity: 1 }] },
          });

        const before = await versions();
        assert.equal((await order()).status, 201);
        assert.deepEqual(await versions(), before);

        assert.equal((await order()).status, 201); // the last one: the product moves to the out-of-stock counter
        assert.notDeepEqual(await versions(), before);
      });
  });

  describe(`migration 0003-product-price-counts (${dialect.name})`, { skip: dialect.skip }, () => {
    it('fills the counters from the products already there, and its down() leaves products writable', async () => {
      const database = await dialect.createDatabase();
      const db = createDatabase(database.url, { poolSize: 2 });
      const migrator = (migrations: Record<string, Migration>) =>
        new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const upTo0002 = { '0001-initial-schema': initialSchema, '0002-products-list': productsList };
      const upTo0003 = { ...upTo0002, '0003-product-price-counts': productPriceCounts };
      try {
        assert.equal((await migrator(upTo0002).migrateToLatest()).error, undefined);
        const at = new Date().toISOString();
        await db
          .insertInto('products')
          .values(
            Array.from({ length: 60 }, (_, i) => ({
              name: `P ${i}`,
              category: `c${i % 3}`,
              price_cents: i * 173,
              stock: i % 5,
              created_at: at,
              updated_at: at,
            })),
          )
          .execute();

        assert.equal((await migrator(upTo0003).migrateToLatest()).error, undefined);
        assert.equal(await priceCounterMismatches(db), 0);
        const counted = await db
          .selectFrom('products')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(counted.n), 60);

        assert.equal((await migrator(upTo0003).migrateDown()).error, undefined);
        // No trigger is left writing to the dropped table.
        await db.updateTable('products').set({ price_cents: 999, stock: 0 }).where('id', '<=', 10).execute();
        await db.deleteFrom('products').where('id', '<=', 5).execute();
        await db
          .insertInto('products')
          .values({ name: 'After down', category: 'c9', price_cents: 1, stock: 1, created_at: at, updated_at: at })
          .execute();

        assert.equal((await migrator(upTo0003).migrateToLatest()).error, undefined);
        assert.equal(await priceCounterMismatches(db), 0);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });

  if (dialect.name === 'postgres') {
    describe('migration 0004-counter-storage (postgres)', () => {
      it('leaves room for in-page updates of the counters, keeps them exact, and its down() restores the defaults', async () => {
        const database = await dialect.createDatabase();
        const db = createDatabase(database.url, { poolSize: 2 });
        const upTo0003 = {
          '0001-initial-schema': initialSchema,
          '0002-products-list': productsList,
          '0003-product-price-counts': productPriceCounts,
        };
        const migrator = new Migrator({
          db,
          provider: { getMigrations: async () => ({ ...upTo0003, '0004-counter-storage': counterStorage }) },
        });
        const options = async () => {
          const { rows } = await sql<{ relname: string; reloptions: string[] | null }>`
            select relname, reloptions from pg_class where relname in ('product_counts', 'product_price_counts') order by relname`.execute(
            db,
          );
          return rows.map((r) => `${r.relname}: ${(r.reloptions ?? []).join(',')}`);
        };
        const at = new Date().toISOString();
        const insert = (n: number) =>
          db
            .insertInto('products')
            .values(
              Array.from({ length: n }, (_, i) => ({
                name: `P ${i}`,
                category: `c${i % 3}`,
                price_cents: i * 173,
                stock: i % 5,
                created_at: at,
                updated_at: at,
              })),
            )
            .execute();
        try {
          assert.equal((await migrator.migrateTo('0003-product-price-counts')).error, undefined);
          await insert(60);
          assert.equal((await migrator.migrateToLatest()).error, undefined);
          assert.deepEqual(await options(), ['product_counts: fillfactor=50', 'product_price_counts: fillfactor=50']);
          await insert(20);
          await db.updateTable('products').set({ stock: 0 }).where('id', '<=', 30).execute();
          assert.equal(await priceCounterMismatches(db), 0);

          assert.equal((await migrator.migrateDown()).error, undefined);
          assert.deepEqual(await options(), ['product_counts: ', 'product_price_counts: ']);
          await db.deleteFrom('products').where('id', '<=', 10).execute();
          assert.equal(await priceCounterMismatches(db), 0);
        } finally {
          await db.destroy();
          await database.drop();
        }
      });
    });
  }
}
