import { centsToAmount, type Order, type OrderItem } from './order.ts';
import { ORDER_TRANSITIONS, RELATIONS_BY_STATE, type OrderAction, type OrderRelation } from './order-state-machine.ts';
import type { Receipt } from './orders.service.ts';

export interface LinkView {
  href: string;
  method?: string;
}

/**
 * The links of an order, derived from the state machine: one action link (POST) per transition
 * out of its status, plus the read-only relations of that status.
 */
export type OrderLinks = { self: LinkView } & Partial<Record<OrderAction | OrderRelation, LinkView>>;

export function orderLinks(order: Pick<Order, 'id' | 'status' | 'customerId'>, prefix: string): OrderLinks {
  const self = `${prefix}/orders/${order.id}`;
  const links: OrderLinks = { self: { href: self } };
  for (const transition of ORDER_TRANSITIONS) {
    if (transition.from === order.status)
      links[transition.action] = { href: `${self}/${transition.action}`, method: 'POST' };
  }
  for (const relation of RELATIONS_BY_STATE[order.status]) {
    const href = relation === 'receipt' ? `${self}/receipt` : `${prefix}/customers/${order.customerId}`;
    links[relation] = { href, method: 'GET' };
  }
  return links;
}

const toItemView = (item: OrderItem) => ({
  productId: item.productId,
  name: item.name,
  quantity: item.quantity,
  unitPrice: centsToAmount(item.unitPriceCents),
});

export function toOrderView(order: Order, prefix: string) {
  return {
    id: order.id,
    customerId: order.customerId,
    status: order.status,
    items: order.items.map(toItemView),
    amount: centsToAmount(order.amountCents),
    currency: order.currency,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    paidAt: order.paidAt,
    cancelledAt: order.cancelledAt,
    refundedAt: order.refundedAt,
    _links: orderLinks(order, prefix),
  };
}

export function toReceiptView(receipt: Receipt, prefix: string) {
  const order = `${prefix}/orders/${receipt.orderId}`;
  return {
    receiptNumber: receipt.receiptNumber,
    orderId: receipt.orderId,
    customerId: receipt.customerId,
    items: receipt.items.map(toItemView),
    amount: centsToAmount(receipt.amountCents),
    currency: receipt.currency,
    paidAt: receipt.paidAt,
    refundedAt: receipt.refundedAt,
    _links: { self: { href: `${order}/receipt` }, order: { href: order } },
  };
}
