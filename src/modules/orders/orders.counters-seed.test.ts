import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDatabase, type Db } from '../../core/db/database.ts';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { DEFAULT_SEED_OPTIONS, type SeedOptions } from '../../demo/seed-options.ts';
import { seedDatabase } from '../../demo/seed-runner.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { migrationsOfModules } from '../index.ts';

/** Orders of 60 customers, in several of the seed's statements (1,000 rows each on PostgreSQL). */
const ORDERS: SeedOptions = {
  ...DEFAULT_SEED_OPTIONS,
  users: 60,
  postsPerUser: 0,
  commentsPerPost: 0,
  likesPerComment: 0,
  products: 20,
  orders: 3_500,
};

/** `order_counts` rows that differ from a count of the orders (or that are missing, or extra). */
async function wrongCounters(db: Db): Promise<unknown[]> {
  const { rows } = await sql`
    select * from order_counts c full join (
      select customer_id, status, count(*) as n from orders group by customer_id, status
      union all select customer_id, '', count(*) from orders group by customer_id
      union all select 0, status, count(*) from orders group by status
      union all select 0, '', count(*) from orders) as r using (customer_id, status)
    where c.n is distinct from r.n`.execute(db);
  return rows;
}

async function withDatabase(dialect: (typeof DIALECTS)[number], work: (db: Db) => Promise<void>): Promise<void> {
  const { url, drop } = await dialect.createDatabase();
  const db = createDatabase(url);
  try {
    await work(db);
  } finally {
    await db.destroy();
    await drop();
  }
}

/**
 * `npm run seed` bulk-loads orders: into a database the server has migrated, the counters' triggers
 * keep up with each batch; into a new one (`seed` applies core's migrations only), the orders
 * module's migration fills the counters from the orders it finds when the server starts.
 */
for (const dialect of DIALECTS) {
  describe(`order counters after a seed (${dialect.name})`, { skip: dialect.skip }, () => {
    it('are exact after a bulk load into a migrated database, and compact in key order on PostgreSQL', async () => {
      await withDatabase(dialect, async (db) => {
        await migrateToLatest(db, migrationsOfModules);
        await seedDatabase(db, ORDERS);
        assert.deepEqual(await wrongCounters(db), []);
        if (dialect.name !== 'postgres') return;
        // As small as the same rows written once (each of the load's statements left a version of many).
        const { pages, fresh, ordered } = await db.transaction().execute(async (trx) => {
          await sql`create temporary table fresh_counts with (fillfactor = 50) on commit drop as
                      select * from order_counts order by customer_id, status`.execute(trx);
          const { rows } = await sql<{ pages: number; fresh: number; ordered: boolean }>`
            select pg_relation_size('order_counts') / 8192 as pages,
                   pg_relation_size('fresh_counts') / 8192 as fresh,
                   (select array_agg(row(customer_id, status)::text order by ctid)
                      = array_agg(row(customer_id, status)::text order by customer_id, status)
                      from order_counts) as ordered`.execute(trx);
          return rows[0]!;
        });
        assert.ok(
          Number(pages) <= Number(fresh),
          `order_counts spans ${pages} pages, the same rows written once ${fresh}`,
        );
        assert.equal(ordered, true, 'order_counts in key order');
      });
    });

    it('are filled from the orders already there when the orders module migrates after the seed', async () => {
      await withDatabase(dialect, async (db) => {
        await migrateToLatest(db);
        await seedDatabase(db, { ...ORDERS, orders: 500 });
        const { applied } = await migrateToLatest(db, migrationsOfModules);
        assert.ok(applied.includes('0011-orders-order-counts'));
        assert.deepEqual(await wrongCounters(db), []);
      });
    });
  });
}
