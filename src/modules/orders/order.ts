import type { OrderItemRow, OrderRow } from './orders.table.ts';

export type OrderStatus = OrderRow['status'];

export const ORDER_STATUSES = ['pending', 'paid', 'cancelled', 'refunded'] as const satisfies readonly OrderStatus[];

export interface OrderItem {
  productId: number;
  name: string;
  quantity: number;
  /** Money in the domain is integer cents; presenters turn it into a JSON number. */
  unitPriceCents: number;
}

/** An order as the domain knows it: its lines carry the name and price at the time of purchase. */
export interface Order {
  id: number;
  customerId: number;
  status: OrderStatus;
  items: OrderItem[];
  amountCents: number;
  currency: string;
  createdAt: string;
  updatedAt: string;
  paidAt: string | null;
  cancelledAt: string | null;
  refundedAt: string | null;
}

export function toOrder(row: OrderRow, items: readonly OrderItemRow[]): Order {
  return {
    id: row.id,
    customerId: row.customer_id,
    status: row.status,
    items: items.map((item) => ({
      productId: item.product_id,
      name: item.name,
      quantity: item.quantity,
      unitPriceCents: Number(item.unit_price_cents),
    })),
    amountCents: Number(row.amount_cents),
    currency: row.currency,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    paidAt: row.paid_at,
    cancelledAt: row.cancelled_at,
    refundedAt: row.refunded_at,
  };
}

/** Integer cents → a JSON number with at most two decimals (1234 → 12.34 exactly). */
export const centsToAmount = (cents: number): number => cents / 100;
