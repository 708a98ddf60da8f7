import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError, type ErrorDetail } from '../../core/errors/app-error.ts';
import type { QueriedPage } from '../../core/querying/list-page.ts';
import { DEFAULT_LIST_SETTINGS, type ListSettings } from '../../core/querying/list-grammar.ts';
import {
  listRequestOf,
  parseListQuery,
  type ListOptions,
  type ListQuery,
} from '../../core/querying/list-query-parse.ts';
import { pageWindow } from '../../core/pagination.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { toOrder, type Order, type OrderStatus } from './order.ts';
import type { OrderRow } from './orders.table.ts';
import {
  actionPermitted,
  allowedActions,
  guardMessageOf,
  hasReceipt,
  transitionFor,
  type OrderAction,
  type Transition,
} from './order-state-machine.ts';
import { placeOrder } from './order-placement.service.ts';
import { createOrderAggregates } from './orders.aggregate.service.ts';
import * as repo from './orders.repository.ts';
import { ORDER_QUERY } from './orders.query.ts';
import { CreateOrderInput } from './orders.schemas.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';

/** The list's page, sort, count and cursor; its filters are every other parameter the grammar names (orders.query.ts). */
export type ListOrdersOptions = ListOptions;

export interface Receipt {
  receiptNumber: string;
  orderId: number;
  customerId: number;
  items: Order['items'];
  amountCents: number;
  currency: string;
  paidAt: string;
  refundedAt: string | null;
}

export const ORDER_PAGE_RULES = { defaultLimit: 20, maxLimit: 100 };

export interface OrdersOptions {
  currency: string;
  /** How long a pending order holds its stock before the sweep cancels it (ORDER_HOLD_MINUTES). */
  holdMs: number;
}

/** Overdue orders cancelled per sweep step: each is its own short transaction. */
const EXPIRY_BATCH = 100;

/** The hold running out is the state machine's `cancel` (pending → cancelled, stock returned), not a rule of its own. */
const EXPIRE = transitionFor('cancel', 'pending')!;
/** Rolls back a sweep's transaction whose order another transition moved first; never leaves the service. */
const RACE_LOST = AppError.conflict('The order left the pending state before its hold ran out');

const checkCreate = createChecker<CreateOrderInput>(CreateOrderInput);

// Someone else's order reads as missing: its existence is none of the caller's business.
const notFound = (id: number) => AppError.notFound(`Order ${id}`);

const mayView = (actor: Principal, order: OrderRow) => isAdmin(actor) || order.customer_id === actor.userId;

function invalidState(what: string, status: OrderStatus): AppError {
  const allowed = allowedActions(status);
  const details: ErrorDetail[] = [
    { field: 'status', message: `is ${status}; allowed actions: ${allowed.join(', ') || 'none'}` },
  ];
  return new AppError('INVALID_STATE', `Cannot ${what}: the order is ${status}`, { details });
}

/** Readable and sortable, and derived from the order alone, so it is the same on every read. */
const receiptNumberOf = (order: Order, paidAt: string) =>
  `R-${paidAt.slice(0, 10).replaceAll('-', '')}-${String(order.id).padStart(8, '0')}`;

export type OrderEvents = Record<'order.created' | 'order.paid' | 'order.cancelled' | 'order.refunded', Order>;

/** The event of each state a transition reaches. */
const EVENT_OF_STATUS: Partial<Record<OrderStatus, keyof OrderEvents>> = {
  paid: 'order.paid',
  cancelled: 'order.cancelled',
  refunded: 'order.refunded',
};

export function createOrdersService(
  db: Db,
  options: OrdersOptions,
  events: EventRecorder<OrderEvents> = noEvents(),
  lists: ListSettings = DEFAULT_LIST_SETTINGS,
) {
  async function loadOrder(reader: Db, row: OrderRow): Promise<Order> {
    const items = await repo.findItemsByOrderIds(reader, [row.id]);
    return toOrder(row, items.get(row.id) ?? []);
  }

  async function readVisible(actor: Principal | null, id: number): Promise<Order> {
    const principal = requireSignedIn(actor);
    const row = await repo.findOrderById(db, id);
    if (!row || !mayView(principal, row)) throw notFound(id);
    return loadOrder(db, row);
  }

  /**
   * Moves order `id` along `transition` if it is still in the transition's `from` state, with its
   * effect (returning stock) in the same transaction `trx`. Undefined when the conditional update
   * found the order in another state: a racing transition won, and the caller must roll `trx` back.
   *
   * The stock goes back before the order moves, so every write of orders locks in one order:
   * products (ascending ids), then the order, then the `order_counts` rows its statement changes
   * (orders.counters.migration.ts); placing an order takes its products, then its counters. Returned
   * after the update, a cancellation would hold `(0, 'pending')` while waiting for a product that a
   * placement holds while waiting for `(0, 'pending')`: a deadlock PostgreSQL breaks after a second.
   */
  async function applyTransition(trx: Db, id: number, transition: Transition): Promise<Order | undefined> {
    const items = (await repo.findItemsByOrderIds(trx, [id])).get(id) ?? [];
    if (transition.returnsStock) {
      // Ascending product ids: concurrent transactions lock products in one order, so never deadlock.
      const lines = [...items].sort((a, b) => a.product_id - b.product_id);
      for (const line of lines) await repo.returnStock(trx, line.product_id, line.quantity);
    }
    const row = await repo.transitionOrder(trx, id, transition.from, transition.to, transition.stamp, now());
    if (!row) return undefined;
    const order = toOrder(row, items);
    const type = EVENT_OF_STATUS[transition.to];
    if (type) await events.record(trx, type, order);
    return order;
  }

  /**
   * Applies one transition of the state machine. Permission comes before state (a non-admin
   * refund is 403 whatever the status); the conditional update decides races, and the effect
   * (returning stock) runs in the same transaction, so a lost race changes nothing.
   */
  async function act(actor: Principal | null, id: number, action: OrderAction): Promise<Order> {
    const principal = requireSignedIn(actor);
    return events.transaction(db, async (trx) => {
      const current = await repo.findOrderById(trx, id);
      if (!current || !mayView(principal, current)) throw notFound(id);
      if (!actionPermitted(action, principal)) throw AppError.forbidden(guardMessageOf(action));
      const transition = transitionFor(action, current.status);
      if (!transition) throw invalidState(action, current.status);
      const order = await applyTransition(trx, id, transition);
      if (order) return order;
      const latest = await repo.findOrderById(trx, id);
      throw invalidState(action, latest?.status ?? current.status);
    });
  }

  /**
   * A list request read as `principal` may make it (orders.query.ts): a customer's is scoped to their own
   * orders whatever else it filters, and `customerId` may name no one else (403). The list, its facets
   * and the aggregates all read their conditions here, so the permission is one rule.
   */
  function listQueryFor(principal: Principal, options: ListOrdersOptions): ListQuery {
    const admin = isAdmin(principal);
    const scope = admin ? undefined : { customer_id: principal.userId };
    const query = parseListQuery(ORDER_QUERY, listRequestOf(options, scope), { admin, ...lists });
    const othersNamed = query.conditions.some(
      (c) => c.field === 'customerId' && (c.operator !== 'eq' || c.value !== principal.userId),
    );
    if (!admin && othersNamed) throw AppError.forbidden("Only an administrator may list another customer's orders");
    return query;
  }

  return {
    ...createOrderAggregates(db, listQueryFor),

    /** STORE_CURRENCY: the only `currency` an order may name (REST's body states it). */
    storeCurrency: options.currency,

    async createOrder(actor: Principal | null, raw: unknown): Promise<Order> {
      const principal = requireSignedIn(actor);
      const input = checkCreate(raw);
      const row = await placeOrder(events.transaction, db, principal, input, options.currency, async (trx, placed) =>
        events.record(trx, 'order.created', await loadOrder(trx, placed)),
      );
      return loadOrder(db, row);
    },

    getOrder: readVisible,

    /**
     * A page of orders by the list's grammar (orders.query.ts): filters, sort, count and cursor. A
     * customer sees their own orders only: `customerId` may name no one else (403), and the list is
     * scoped to them whatever else it filters.
     */
    async listOrders(actor: Principal | null, options: ListOrdersOptions): Promise<QueriedPage<Order>> {
      const query = listQueryFor(requireSignedIn(actor), options);
      const page = await repo.readOrderPage(db, query, pageWindow(options, ORDER_PAGE_RULES));
      const items = await repo.findItemsByOrderIds(
        db,
        page.items.map((row) => row.id),
      );
      return { ...page, items: page.items.map((row) => toOrder(row, items.get(row.id) ?? [])) };
    },

    pay: (actor: Principal | null, id: number) => act(actor, id, 'pay'),
    cancel: (actor: Principal | null, id: number) => act(actor, id, 'cancel'),
    refund: (actor: Principal | null, id: number) => act(actor, id, 'refund'),

    /**
     * The order-hold sweep (DECISIONS §3), one batch: cancels pending orders older than the hold,
     * each in its own transaction through the same conditional transition as `cancel`. Of this,
     * another instance's sweep and the customer's `pay` or `cancel`, the database lets exactly one
     * move the order, so its stock comes back at most once. `more`: a full batch, look again at once.
     */
    async expireOverdueOrders(): Promise<{ cancelled: number; more: boolean }> {
      const cutoff = new Date(Date.now() - options.holdMs).toISOString();
      const ids = await repo.findOverduePendingOrderIds(db, cutoff, EXPIRY_BATCH);
      let cancelled = 0;
      for (const id of ids) {
        const expired = await events
          .transaction(db, async (trx) => {
            // The customer's pay or cancel, or another instance's sweep, won: roll back the stock returned.
            if (!(await applyTransition(trx, id, EXPIRE))) throw RACE_LOST;
            return true;
          })
          .catch((error: unknown) => (error === RACE_LOST ? false : Promise.reject(error)));
        if (expired) cancelled += 1;
      }
      return { cancelled, more: ids.length === EXPIRY_BATCH };
    },

    /** Paid and refunded orders have a receipt (the states that link to one); others are 409. */
    async getReceipt(actor: Principal | null, id: number): Promise<Receipt> {
      const order = await readVisible(actor, id);
      if (!hasReceipt(order.status) || !order.paidAt) throw invalidState('issue a receipt', order.status);
      return {
        receiptNumber: receiptNumberOf(order, order.paidAt),
        orderId: order.id,
        customerId: order.customerId,
        items: order.items,
        amountCents: order.amountCents,
        currency: order.currency,
        paidAt: order.paidAt,
        refundedAt: order.refundedAt,
      };
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
