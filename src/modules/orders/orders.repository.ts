import type { Db } from '../../core/db/database.ts';
import { rowByIdStatement } from '../../core/db/by-id-statements.ts';
import { readRows } from '../../core/db/fast-read.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements } from '../../core/querying/list-sql.ts';
import type { OrderStatus } from './order.ts';
import { ORDER_QUERY } from './orders.query.ts';
import type { OrderItemRow, OrderRow } from './orders.table.ts';
import type { OrderTimestamp } from './order-state-machine.ts';

/** All SQL of orders, their lines, and the stock they take from and return to products. */

export interface ProductForSale {
  id: number;
  name: string;
  price_cents: number;
  stock: number;
}

export interface NewOrder {
  customer_id: number;
  amount_cents: number;
  currency: string;
  created_at: string;
  lines: { product_id: number; name: string; quantity: number; unit_price_cents: number }[];
}

export async function findProductsForSale(db: Db, ids: readonly number[]): Promise<ProductForSale[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('products')
    .select(['id', 'name', 'price_cents', 'stock'])
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => ({ ...row, price_cents: Number(row.price_cents) }));
}

/** Takes stock only if enough is left: the database decides, so concurrent orders never oversell. */
export async function takeStock(db: Db, productId: number, quantity: number): Promise<boolean> {
  const result = await db
    .updateTable('products')
    .set((eb) => ({ stock: eb('stock', '-', quantity) }))
    .where('id', '=', productId)
    .where('stock', '>=', quantity)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function returnStock(db: Db, productId: number, quantity: number): Promise<void> {
  await db
    .updateTable('products')
    .set((eb) => ({ stock: eb('stock', '+', quantity) }))
    .where('id', '=', productId)
    .execute();
}

export async function insertOrder(db: Db, order: NewOrder): Promise<OrderRow> {
  const row = await db
    .insertInto('orders')
    .values({
      customer_id: order.customer_id,
      status: 'pending',
      amount_cents: order.amount_cents,
      currency: order.currency,
      created_at: order.created_at,
      updated_at: order.created_at,
      paid_at: null,
      cancelled_at: null,
      refunded_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await db
    .insertInto('order_items')
    .values(order.lines.map((line) => ({ ...line, order_id: row.id })))
    .execute();
  return row;
}

const orderById = rowByIdStatement<OrderRow>('orders');

export async function findOrderById(db: Db, id: number): Promise<OrderRow | undefined> {
  return (await readRows(db, orderById(db, id)))[0];
}

/** Lines of many orders in one query, in their original order. */
export async function findItemsByOrderIds(db: Db, orderIds: readonly number[]): Promise<Map<number, OrderItemRow[]>> {
  const byOrder = new Map<number, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db.selectFrom('order_items').selectAll().where('order_id', 'in', orderIds).orderBy('id').execute();
  for (const row of rows) byOrder.get(row.order_id)?.push(row);
  return byOrder;
}

const orderList = createListStatements<OrderRow>('orders');

/** One page of orders as the request's grammar reads it (a customer's own: its scope). */
export function readOrderPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<OrderRow>> {
  return readQueriedPage(db, ORDER_QUERY, orderList, query, window);
}

/**
 * Moves an order from one status to the next only if it is still in the first: of two racing
 * transitions exactly one updates the row, on SQLite (writers are serialised) and on PostgreSQL
 * (the second waits for the row lock, then finds the status changed). Returns the updated row.
 */
export function transitionOrder(
  db: Db,
  id: number,
  from: OrderStatus,
  to: OrderStatus,
  stamp: OrderTimestamp,
  at: string,
): Promise<OrderRow | undefined> {
  return db
    .updateTable('orders')
    .set({ status: to, [stamp]: at, updated_at: at })
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Pending orders placed before `cutoff`, oldest first: the ones whose stock hold has run out.
 * Served by `orders_status_created_at_idx` (migration 0005), so the sweep reads only those.
 */
export async function findOverduePendingOrderIds(db: Db, cutoff: string, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('orders')
    .select('id')
    .where('status', '=', 'pending')
    .where('created_at', '<', cutoff)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

export async function userExists(db: Db, id: number): Promise<boolean> {
  const row = await db.selectFrom('users').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}
