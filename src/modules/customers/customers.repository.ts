import type { Db } from '../../core/db/database.ts';
import { isErasedRow } from '../users/user.ts';

/** All SQL of the customer view: a user and the sums of their orders. */

export interface CustomerRow {
  id: number;
  name: string;
  /** Null for an erased user's tombstone (DECISIONS §19). */
  email: string | null;
}

/** An erased customer keeps their orders, with no e-mail (DECISIONS §19). */
const customerOf = (row: { id: number; name: string; email: string }): CustomerRow =>
  isErasedRow(row) ? { ...row, email: null } : row;

export async function findCustomerById(db: Db, id: number): Promise<CustomerRow | undefined> {
  const row = await db.selectFrom('users').select(['id', 'name', 'email']).where('id', '=', id).executeTakeFirst();
  return row && customerOf(row);
}

/** Every order counts; only orders that are paid now (not refunded) count as money spent. */
export async function summariseOrdersOf(
  db: Db,
  customerId: number,
): Promise<{ orderCount: number; spentCents: number }> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => [
      eb.fn.countAll<number>().as('order_count'),
      eb.fn
        .sum<number | string | null>(eb.case().when('status', '=', 'paid').then(eb.ref('amount_cents')).else(0).end())
        .as('spent_cents'),
    ])
    .where('customer_id', '=', customerId)
    .executeTakeFirstOrThrow();
  // PostgreSQL returns sum(bigint) as numeric (a string); SQLite as an integer.
  return { orderCount: Number(row.order_count), spentCents: Number(row.spent_cents ?? 0) };
}

export async function findCustomersByIds(db: Db, ids: readonly number[]): Promise<CustomerRow[]> {
  const rows = await db.selectFrom('users').select(['id', 'name', 'email']).where('id', 'in', ids).execute();
  return rows.map(customerOf);
}

/** `summariseOrdersOf` for several customers in one statement (through the orders' `customer_id` index). */
export async function summariseOrdersOfMany(
  db: Db,
  customerIds: readonly number[],
): Promise<Map<number, { orderCount: number; spentCents: number }>> {
  const rows = await db
    .selectFrom('orders')
    .select((eb) => [
      'customer_id',
      eb.fn.countAll<number>().as('order_count'),
      eb.fn
        .sum<number | string | null>(eb.case().when('status', '=', 'paid').then(eb.ref('amount_cents')).else(0).end())
        .as('spent_cents'),
    ])
    .where('customer_id', 'in', customerIds)
    .groupBy('customer_id')
    .execute();
  return new Map(
    rows.map((row) => [
      row.customer_id,
      { orderCount: Number(row.order_count), spentCents: Number(row.spent_cents ?? 0) },
    ]),
  );
}

/**
 * The users who have orders, by ascending id after `afterId`: `limit` of them (the caller reads one more to
 * know whether a page follows). Each user is looked up in the orders' `customer_id` index, so a page
 * costs its length, not the table's. Erased users (tombstones, DECISIONS §19) are in no list.
 */
export function listCustomersAfter(db: Db, afterId: number, limit: number): Promise<CustomerRow[]> {
  return db
    .selectFrom('users')
    .select(['id', 'name', 'email'])
    .where('id', '>', afterId)
    .where('erased_at', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('orders').select('orders.id').whereRef('orders.customer_id', '=', 'users.id')),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
}
