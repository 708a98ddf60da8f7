import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { rowByIdReader } from '../../core/db/by-id-statements.ts';
import { counterSum } from '../../core/db/counter-sums.ts';
import type { PageWindow } from '../../core/pagination.ts';
import { aggregateColumnsOf, MAX_FACET_VALUES } from '../../core/querying/aggregate-grammar.ts';
import type { AggregateQuery } from '../../core/querying/aggregate-parse.ts';
import type { AggregateResult, FacetValue } from '../../core/querying/aggregate-answer.ts';
import { createAggregateStatements } from '../../core/querying/aggregate-sql.ts';
import type { Condition, FilterValue } from '../../core/querying/list-grammar.ts';
import { readQueriedPage, type QueriedPage } from '../../core/querying/list-page.ts';
import type { ListQuery } from '../../core/querying/list-query-parse.ts';
import { createListStatements, listColumnsOf } from '../../core/querying/list-sql.ts';
import type { OrderStatus } from './order.ts';
import { ORDER_QUERY } from './orders.query.ts';
import { ORDER_AGGREGATES } from './orders.aggregate.ts';
import {
  ORDER_COUNTS_ALL_CUSTOMERS,
  ORDER_COUNTS_ALL_STATUSES,
  type OrderItemRow,
  type OrderRow,
} from './orders.table.ts';
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

export const findOrderById = rowByIdReader<OrderRow>('orders');

/** Lines of many orders in one query, in their original order. */
export async function findItemsByOrderIds(db: Db, orderIds: readonly number[]): Promise<Map<number, OrderItemRow[]>> {
  const byOrder = new Map<number, OrderItemRow[]>(orderIds.map((id) => [id, []]));
  if (orderIds.length === 0) return byOrder;
  const rows = await db.selectFrom('order_items').selectAll().where('order_id', 'in', orderIds).orderBy('id').execute();
  for (const row of rows) byOrder.get(row.order_id)?.push(row);
  return byOrder;
}

const orderList = createListStatements<OrderRow>('orders', listColumnsOf([ORDER_QUERY], 'id', 'customer_id'));

/**
 * One page of orders as the request's grammar reads it (a customer's own: its scope), with the total
 * its `count` asks for: from `order_counts` when it can answer (countedOrders), else counted.
 */
export function readOrderPage(db: Db, query: ListQuery, window: PageWindow): Promise<QueriedPage<OrderRow>> {
  return readQueriedPage(db, ORDER_QUERY, orderList, query, window, { countedTotal: countedOrders });
}

const orderAggregates = createAggregateStatements('orders', ORDER_AGGREGATES, [
  ...listColumnsOf([ORDER_QUERY], 'id', 'customer_id'),
  ...aggregateColumnsOf(ORDER_AGGREGATES),
]);

/** The groups and measures of the orders `conditions` match (the list's conditions, a customer's scope included). */
export function aggregateOrders(
  db: Db,
  conditions: readonly Condition[],
  query: AggregateQuery,
): Promise<AggregateResult> {
  return orderAggregates.aggregate(db, conditions, query);
}

/**
 * The values and counts of each facet among the orders `conditions` match, each facet's own conditions
 * left out. The status facet of every order, or of one customer's (a customer's own facets), is read
 * from `order_counts` (exact by triggers): a row per status instead of every order.
 */
export async function countOrderFacets(
  db: Db,
  conditions: readonly Condition[],
  names: readonly string[],
): Promise<Record<string, FacetValue[]>> {
  const counted = names.includes('status') ? await countedStatusFacet(db, conditions) : undefined;
  const rest = counted ? names.filter((name) => name !== 'status') : names;
  const counts = rest.length > 0 ? await orderAggregates.facets(db, conditions, rest) : {};
  return Object.fromEntries(names.map((name) => [name, name === 'status' && counted ? counted : counts[name]!]));
}

/** The status facet from `order_counts` when the other conditions name one customer or nothing; else undefined. */
async function countedStatusFacet(db: Db, conditions: readonly Condition[]): Promise<FacetValue[] | undefined> {
  const others = conditions.filter((condition) => condition.field !== 'status');
  const [only] = others;
  if (others.length > 1 || (only && (only.column !== 'customer_id' || only.operator !== 'eq'))) return undefined;
  // A customer id is positive: 0, the counters' key of all customers, names no one.
  const customer = only ? Number(only.value) : ORDER_COUNTS_ALL_CUSTOMERS;
  if (only && !(Number.isSafeInteger(customer) && customer > 0)) return [];
  const count = sql<number | string>`n`;
  const byValue = dialectOf(db) === 'postgres' ? sql`status collate "C"` : sql`status`;
  const rows = await db
    .selectFrom('order_counts')
    .select(['status as value', count.as('count')])
    .where('customer_id', '=', customer)
    .where('status', '<>', ORDER_COUNTS_ALL_STATUSES)
    // A status whose last order moved on keeps its counter row at zero.
    .where(count, '>', 0)
    .orderBy(count, 'desc')
    .orderBy(byValue)
    .limit(MAX_FACET_VALUES)
    .execute();
  return rows.map((row) => ({ value: row.value, count: Number(row.count) }));
}

/** The `order_counts` rows to sum: one value of a key is an equality, several an `in` list. */
const sumOrderCounts = counterSum('order_counts', ['customer_id', 'status']);

/** The values a condition allows (an equality's one, an `in` list's), narrowed by those allowed before. */
function narrowed<T>(before: T[] | undefined, values: readonly T[]): T[] {
  const unique = [...new Set(values)];
  return before === undefined ? unique : before.filter((value) => unique.includes(value));
}

/**
 * The exact total from `order_counts` (orders.counters.migration.ts) when the conditions are only
 * equalities or `in` lists on the customer (a customer's own list is scoped so) and the status, or
 * none: the row of all orders, one row per customer or status named, or one per pair of both.
 * Undefined for any other condition (the rows are counted then).
 */
function countedOrders(db: Db, conditions: readonly Condition[]): Promise<number> | undefined {
  let customers: number[] | undefined;
  let statuses: string[] | undefined;
  for (const condition of conditions) {
    if (condition.anyOfColumns || (condition.operator !== 'eq' && condition.operator !== 'in')) return undefined;
    const values = condition.operator === 'eq' ? [condition.value] : (condition.value as readonly FilterValue[]);
    if (condition.column === 'customer_id') {
      // Ids are positive: 0 (the counters' key of all customers) or below names no customer.
      customers = narrowed(
        customers,
        values.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0),
      );
    } else if (condition.column === 'status') {
      statuses = narrowed(
        statuses,
        values.map(String).filter((status) => status !== ORDER_COUNTS_ALL_STATUSES),
      );
    } else return undefined;
  }
  if (customers?.length === 0 || statuses?.length === 0) return Promise.resolve(0);
  return sumOrderCounts(db, {
    customer_id: customers ?? [ORDER_COUNTS_ALL_CUSTOMERS],
    status: statuses ?? [ORDER_COUNTS_ALL_STATUSES],
  });
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
