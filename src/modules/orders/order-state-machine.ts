import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { OrderStatus } from './order.ts';

/**
 * The order life cycle, declared once. The actions (`pay`, `cancel`, `refund`) are allowed by
 * this table and the links an order shows are derived from it, so the two can never disagree.
 */
export type OrderAction = 'pay' | 'cancel' | 'refund';
export type OrderTimestamp = 'paid_at' | 'cancelled_at' | 'refunded_at';

export interface Transition {
  action: OrderAction;
  from: OrderStatus;
  to: OrderStatus;
  /** Who may take it, beyond seeing the order (the customer or an admin). */
  guard: (actor: Principal) => boolean;
  guardMessage?: string;
  /** The timestamp column the transition sets. */
  stamp: OrderTimestamp;
  /** Effect: put the order's quantities back on the shelf. */
  returnsStock: boolean;
}

const anyViewer = () => true;

export const ORDER_TRANSITIONS: readonly Transition[] = [
  { action: 'pay', from: 'pending', to: 'paid', guard: anyViewer, stamp: 'paid_at', returnsStock: false },
  { action: 'cancel', from: 'pending', to: 'cancelled', guard: anyViewer, stamp: 'cancelled_at', returnsStock: true },
  {
    action: 'refund',
    from: 'paid',
    to: 'refunded',
    guard: isAdmin,
    guardMessage: 'Only an administrator may refund an order',
    stamp: 'refunded_at',
    returnsStock: true,
  },
];

export const ORDER_ACTIONS: readonly OrderAction[] = ['pay', 'cancel', 'refund'];

/** The read-only relations each state links to (DECISIONS §3 "Links by state"). */
export type OrderRelation = 'receipt' | 'customer';
export const RELATIONS_BY_STATE: Readonly<Record<OrderStatus, readonly OrderRelation[]>> = {
  pending: ['customer'],
  paid: ['receipt'],
  cancelled: ['customer'],
  refunded: ['receipt', 'customer'],
};

export function transitionFor(action: OrderAction, from: OrderStatus): Transition | undefined {
  return ORDER_TRANSITIONS.find((t) => t.action === action && t.from === from);
}

export function allowedActions(status: OrderStatus): OrderAction[] {
  return ORDER_TRANSITIONS.filter((t) => t.from === status).map((t) => t.action);
}

/** A receipt exists once money has moved: exactly the states that link to one. */
export const hasReceipt = (status: OrderStatus): boolean => RELATIONS_BY_STATE[status].includes('receipt');

/** Permission is checked before state: a non-admin refunding is refused whatever the order's status. */
export function actionPermitted(action: OrderAction, actor: Principal): boolean {
  return ORDER_TRANSITIONS.some((t) => t.action === action && t.guard(actor));
}

export function guardMessageOf(action: OrderAction): string {
  return ORDER_TRANSITIONS.find((t) => t.action === action && t.guardMessage)?.guardMessage ?? 'You may not do this';
}
