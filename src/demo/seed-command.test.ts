import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { sql, type RawBuilder } from 'kysely';
import { createDatabase, type Db } from '../core/db/database.ts';
import { migrateToLatest } from '../core/db/migrate.ts';
import type { Tables } from '../core/db/tables.ts';
import { DIALECTS, type TestDialect } from '../../test/support/dialects.ts';
import { DEFAULT_SEED_OPTIONS, type SeedOptions } from './seed-options.ts';
import type { SeedProgress } from './seed-progress.ts';
import { seedDatabase, type TableSummary } from './seed-runner.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

const SMALL: SeedOptions = {
  users: 7,
  postsPerUser: 3,
  commentsPerPost: 2,
  likesPerComment: 2,
  products: 25,
  categories: 4,
  orders: 12,
  seed: 7,
};

async function count(db: Db, table: keyof Tables): Promise<number> {
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Everything seeded, ordered, for comparing two databases. */
async function snapshot(db: Db) {
  return {
    users: await db.selectFrom('users').selectAll().orderBy('id').execute(),
    posts: await db.selectFrom('posts').selectAll().orderBy('id').execute(),
    comments: await db.selectFrom('comments').selectAll().orderBy('id').execute(),
    likes: await db.selectFrom('comment_likes').selectAll().orderBy('comment_id').orderBy('user_id').execute(),
    products: await db.selectFrom('products').selectAll().orderBy('id').execute(),
    orders: await db.selectFrom('orders').selectAll().orderBy('id').execute(),
    items: await db.selectFrom('order_items').selectAll().orderBy('id').execute(),
  };
}

async function freshDatabase(dialect: TestDialect, cleanup: (() => Promise<void>)[]) {
  const { url, drop } = await dialect.createDatabase();
  const db = createDatabase(url);
  cleanup.push(async () => {
    await db.destroy();
    await drop();
  });
  await migrateToLatest(db);
  return { url, db };
}

for (const dialect of DIALECTS) {
  describe(`seed (${dialect.name})`, { skip: dialect.skip }, () => {
    const cleanup: (() => Promise<void>)[] = [];
    let db: Db;
    let summaries: TableSummary[];
    before(async () => {
      ({ db } = await freshDatabase(dialect, cleanup));
      summaries = await seedDatabase(db, SMALL);
    });
    after(async () => {
      for (const step of cleanup.reverse()) await step();
    });

    it('creates exactly the requested number of rows in every table', async () => {
      const expected = { users: 7, posts: 21, comments: 42, comment_likes: 84, products: 25, orders: 12 } as const;
      for (const [table, rows] of Object.entries(expected)) {
        assert.equal(await count(db, table as keyof Tables), rows, table);
      }
      const items = await count(db, 'order_items');
      assert.ok(items >= 12 && items <= 36, `1-3 items per order, got ${items}`);
      const reported = Object.fromEntries(summaries.map((s) => [s.table, s.rows]));
      assert.deepEqual(reported, { ...expected, order_items: items });
    });

    it('gives identical rows for the same --seed in another fresh database', async () => {
      const other = await freshDatabase(dialect, cleanup);
      await seedDatabase(other.db, SMALL);
      assert.deepEqual(await snapshot(other.db), await snapshot(db));
    });

    it('gives different rows for a different --seed', async () => {
      const other = await freshDatabase(dialect, cleanup);
      await seedDatabase(other.db, { ...SMALL, seed: 8 });
      const names = async (d: Db) =>
        (await d.selectFrom('products').select('name').orderBy('id').execute()).map((p) => p.name);
      assert.notDeepEqual(await names(other.db), await names(db));
    });

    it('makes every order amount the sum of its items, priced and named as the products', async () => {
      const orders = await db.selectFrom('orders').selectAll().orderBy('id').execute();
      const items = await db
        .selectFrom('order_items')
        .innerJoin('products', 'products.id', 'order_items.product_id')
        .select(['order_items.order_id', 'order_items.quantity', 'order_items.unit_price_cents', 'order_items.name'])
        .select(['products.name as product_name', 'products.price_cents'])
        .execute();
      for (const order of orders) {
        const mine = items.filter((item) => item.order_id === order.id);
        assert.ok(mine.length >= 1 && mine.length <= 3);
        const sum = mine.reduce((total, item) => total + Number(item.quantity) * Number(item.unit_price_cents), 0);
        assert.equal(Number(order.amount_cents), sum, `order ${order.id}`);
        for (const item of mine) {
          assert.equal(item.name, item.product_name);
          assert.equal(Number(item.unit_price_cents), Number(item.price_cents));
        }
      }
    });

    it('sets the timestamps that match each order status, in USD, for seeded customers', async () => {
      const orders = await db.selectFrom('orders').selectAll().execute();
      const userIds = new Set((await db.selectFrom('users').select('id').execute()).map((u) => u.id));
      for (const o of orders) {
        assert.ok(['pending', 'paid', 'cancelled', 'refunded'].includes(o.status));
        assert.equal(o.currency, 'USD');
        assert.ok(userIds.has(o.customer_id));
        assert.equal(
          o.paid_at !== null,
          o.status === 'paid' || o.status === 'refunded',
          `paid_at of a ${o.status} order`,
        );
        assert.equal(o.cancelled_at !== null, o.status === 'cancelled', `cancelled_at of a ${o.status} order`);
        assert.equal(o.refunded_at !== null, o.status === 'refunded', `refunded_at of a ${o.status} order`);
      }
    });

    it('respects the field rules: lower-case unique emails, no passwords, lengths, prices, categories', async () => {
      const users = await db.selectFrom('users').selectAll().execute();
      assert.equal(new Set(users.map((u) => u.email)).size, users.length);
      for (const u of users) {
        assert.equal(u.email, u.email.toLowerCase());
        assert.match(u.email, /^[^@\s]+@[^@\s]+$/);
        assert.ok(u.name.length >= 1 && u.name.length <= 100);
        assert.equal(u.password_hash, null);
        assert.equal(u.role, 'user');
        assert.equal(u.status, 'active');
        assert.match(u.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      }
      for (const p of await db.selectFrom('posts').select(['title', 'content']).execute()) {
        assert.ok(p.title.length >= 1 && p.title.length <= 200);
        assert.ok(p.content.length >= 1 && p.content.length <= 100_000);
      }
      for (const c of await db.selectFrom('comments').select('text').execute()) {
        assert.ok(c.text.length >= 1 && c.text.length <= 10_000);
      }
      for (const p of await db.selectFrom('products').selectAll().execute()) {
        assert.ok(p.name.length >= 1 && p.name.length <= 200);
        assert.match(p.category, /^category-0[1-4]$/);
        assert.ok(Number(p.price_cents) >= 100 && Number(p.price_cents) <= 99_999);
        assert.ok(p.stock >= 0);
      }
    });

    it('loads more rows than one statement or one transaction holds, ids in generation order', async () => {
      const other = await freshDatabase(dialect, cleanup);
      const [, , , , products] = await seedDatabase(other.db, { ...SMALL, users: 0, orders: 0, products: 45_000 });
      assert.equal(products?.rows, 45_000);
      const rows = await other.db.selectFrom('products').select(['id', 'name']).orderBy('id').execute();
      assert.equal(rows.length, 45_000);
      // A fresh database numbers products from 1, and product i is named "... i": ids line up with rows.
      assert.ok(rows.every((p) => p.name.endsWith(` ${p.id}`)));
    });

    if (dialect.name === 'postgres')
      it('leaves the counter tables compact and in key order after a bulk load, older transactions elsewhere included', async () => {
        // CLUSTER keeps every row version some running transaction may still see, and a transaction
        // running in any database holds that horizon back (see compactAfterBulkLoad). Under load another
        // suite's (or another CI run's) write often spanned the load's end: 24 pages, a flake. Here such a
        // transaction, in another database, is open from before the load until 500 ms after its last
        // table: the seed must wait for it instead of clustering while it runs.
        let holding!: () => void;
        let loaded!: () => void;
        const held = new Promise<void>((resolve) => (holding = resolve));
        const ended = new Promise<void>((resolve) => (loaded = resolve)).then(() => delay(500));
        const elsewhere = db.transaction().execute(async (trx) => {
          await sql`select pg_current_xact_id()`.execute(trx); // a transaction id: a write in progress
          holding();
          await ended;
        });
        await held;
        try {
          const other = await freshDatabase(dialect, cleanup);
          const progress: SeedProgress = {
            // order_items is the last table loaded; the compaction follows.
            table: (name) => ({
              increment() {},
              stop() {
                if (name === 'order_items') loaded();
              },
            }),
            close() {},
          };
          await seedDatabase(
            other.db,
            { ...SMALL, users: 0, orders: 0, products: 20_000, categories: 50 },
            { progress },
          );
          const one = async <Row>(query: RawBuilder<Row>) => (await query.execute(other.db)).rows[0]!;
          // 100 counters fit in two half-filled pages; the load's 20 statements left 20 versions of each.
          const { pages } = await one(
            sql<{ pages: number }>`select pg_relation_size('product_counts') / 8192 as pages`,
          );
          assert.ok(Number(pages) <= 2, `product_counts spans ${pages} pages`);
          // One category's price counters (up to 400) lie together, not one per page.
          const category = await one(
            sql<{
              pages: number;
            }>`select count(distinct (ctid::text::point)[0]) as pages from product_price_counts where category = 'category-07'`,
          );
          assert.ok(Number(category.pages) <= 4, `one category's price counters span ${category.pages} pages`);
          // In key order: the rows' physical order (ctid) is their primary key's.
          for (const [table, key] of [
            ['product_counts', sql`category, in_stock`],
            ['product_price_counts', sql`category, in_stock, bucket`],
          ] as const) {
            const { ordered } = await one(
              sql<{
                ordered: boolean;
              }>`select array_agg(row(${key})::text order by ctid) = array_agg(row(${key})::text order by ${key}) as ordered
                                      from ${sql.table(table)}`,
            );
            assert.equal(ordered, true, `${table} in key order`);
          }
        } finally {
          loaded();
          await elsewhere;
        }
      });

    it('seeds again into a database that already has data, with new unique emails', async () => {
      const other = await freshDatabase(dialect, cleanup);
      await seedDatabase(other.db, { ...SMALL, orders: 2 });
      await seedDatabase(other.db, { ...SMALL, orders: 2 });
      assert.equal(await count(other.db, 'users'), 14);
      assert.equal(await count(other.db, 'products'), 50);
      assert.equal(await count(other.db, 'orders'), 4);
    });

    it('runs as `seed` from the CLI and prints a summary line per table', async () => {
      const { url } = await freshDatabase(dialect, cleanup);
      const args = ['src/cli.ts', 'seed', '--users', '3', '--posts-per-user', '2', '--comments-per-post', '1'];
      args.push('--products', '10', '--categories', '2', '--orders', '4');
      const { stdout } = await run('node_modules/.bin/node', args, {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: url, DEMO_DATA: 'false' },
      });
      for (const table of ['users', 'posts', 'comments', 'comment_likes', 'products', 'orders', 'order_items']) {
        assert.match(stdout, new RegExp(`^${table} +[\\d,]+ rows +\\d+\\.\\d\\d s$`, 'm'));
      }
      assert.match(stdout, /^users +3 rows/m);
      assert.match(stdout, /^products +10 rows/m);
    });
  });
}

describe('seed command line', () => {
  it('fails with one clear line and a non-zero exit for a bad option', async () => {
    const env = { ...process.env, DATABASE_URL: 'sqlite::memory:', DEMO_DATA: 'false' };
    const error = await run('node_modules/.bin/node', ['src/cli.ts', 'seed', '--users', 'many'], {
      cwd: ROOT,
      env,
    }).then(
      () => assert.fail('expected a failure'),
      (e: { code: number; stderr: string }) => e,
    );
    assert.equal(error.code, 1);
    assert.equal(error.stderr.trim(), 'seed: --users must be an integer from 0 to 20000000 (got "many")');
  });

  it('prints its usage for --help', async () => {
    const { stdout } = await run('node_modules/.bin/node', ['src/cli.ts', 'seed', '--help'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: 'sqlite::memory:' },
    });
    assert.match(stdout, /--posts-per-user/);
    assert.match(stdout, new RegExp(`default ${DEFAULT_SEED_OPTIONS.products}`));
  });
});
