import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The orders and order_items tables and their row types, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface OrdersTable {
  id: Generated<number>;
  customer_id: number;
  status: 'pending' | 'paid' | 'cancelled' | 'refunded';
  amount_cents: number;
  currency: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  paid_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  refunded_at: Timestamp | null;
}

export interface OrderItemsTable {
  id: Generated<number>;
  order_id: number;
  product_id: number;
  name: string;
  quantity: number;
  unit_price_cents: number;
}

/**
 * Orders per (customer, status), with customer 0 for all customers and status '' for all statuses
 * (`ORDER_COUNTS_ALL_*`), kept by triggers (orders.counters.migration.ts): the list's exact totals.
 */
export interface OrderCountsTable {
  customer_id: number;
  status: string;
  n: number | string;
}

/** The keys of `order_counts` that sum over every customer, and over every status. */
export const ORDER_COUNTS_ALL_CUSTOMERS = 0;
export const ORDER_COUNTS_ALL_STATUSES = '';

/** The counter table with its primary key: the seed clusters it after a bulk load (PostgreSQL), as the products'. */
export const ORDER_COUNTER_TABLES = [{ table: 'order_counts', key: 'order_counts_pk' }] as const;

declare module '../../core/db/tables.ts' {
  interface Tables {
    orders: OrdersTable;
    order_items: OrderItemsTable;
    order_counts: OrderCountsTable;
  }
}

export type OrderRow = Selectable<OrdersTable>;
export type OrderItemRow = Selectable<OrderItemsTable>;
