import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';
import { bucketStatisticsMigration } from '../../core/querying/aggregate-statistics.migration.ts';
import { orderCountsMigration } from './orders.counters.migration.ts';

/**
 * Indexes behind the orders list's filters and sorts (orders.query.ts) that migrations 0001 and 0005
 * have not: `(customer_id, id)`, `(status, id)` and `(status, created_at, id)` are there.
 *
 * - `(created_at, id)`: the default order, newest first, of an administrator's whole list (without it
 *   each page sorted every order), and a creation-time filter.
 * - `(customer_id, created_at, id)`: a customer's own orders, newest first.
 * - `(amount_cents, id)`, `(currency, id)` and `(paid_at, id)`: their filters and sorts; on PostgreSQL
 *   also `(paid_at desc nulls last, id desc)` (unpaid orders sort last in both directions).
 */
const INDEXES = [
  { name: 'orders_created_at_idx', columns: ['created_at', 'id'] },
  { name: 'orders_customer_created_at_idx', columns: ['customer_id', 'created_at', 'id'] },
  { name: 'orders_amount_idx', columns: ['amount_cents', 'id'] },
  { name: 'orders_currency_idx', columns: ['currency', 'id'] },
  { name: 'orders_paid_at_idx', columns: ['paid_at', 'id'] },
] as const;

export const ordersMigrations = {
  '0010-orders-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const { name, columns } of INDEXES) {
        await db.schema
          .createIndex(name)
          .on('orders')
          .columns([...columns])
          .execute();
      }
      if (dialectOf(db) === 'postgres') {
        await sql`create index orders_paid_at_desc_idx on orders (paid_at desc nulls last, id desc)`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const name of ['orders_paid_at_desc_idx', ...INDEXES.map((index) => index.name)]) {
        await db.schema.dropIndex(name).ifExists().execute();
      }
    },
  },
  /** Exact list totals from maintained counters (orders.counters.migration.ts), filled from the orders there are. */
  '0011-orders-order-counts': orderCountsMigration,
  /** PostgreSQL: the group counts of `/orders/aggregate`'s time buckets, for its plans (core/querying). */
  '0017-orders-bucket-statistics': bucketStatisticsMigration('orders', ['created_at', 'paid_at']),
};
