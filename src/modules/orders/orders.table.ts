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

declare module '../../core/db/tables.ts' {
  interface Tables {
    orders: OrdersTable;
    order_items: OrderItemsTable;
  }
}

export type OrderRow = Selectable<OrdersTable>;
export type OrderItemRow = Selectable<OrderItemsTable>;
