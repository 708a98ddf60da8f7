import { listSettingsOf } from '../../core/querying/list-grammar.ts';
import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { ordersEmbeds } from './orders.embeds.ts';
import { ordersTypeDefs } from './orders.graphql.ts';
import { ordersResolvers } from './orders.resolvers.ts';
import { ordersMigrations } from './orders.migrations.ts';
import { toOrderView } from './orders.presenter.ts';
import type { Order } from './order.ts';
import { createOrderHoldWorker } from './order-hold-worker.ts';
import { ordersRoutes } from './orders.routes.ts';
import { OrderView } from './orders.schemas.ts';
import { createOrdersService, type OrderEvents, type OrdersService } from './orders.service.ts';

const view = (order: Order) => toOrderView(order, EVENT_LINK_PREFIX);

/** Orders: REST `/orders` and GraphQL `Order` (with Idempotency-Key / `idempotencyKey`), the state machine, and the order-hold sweep. */
export const ordersModule = defineModule({
  name: 'orders',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createOrdersService(
      db,
      { currency: config.STORE_CURRENCY, holdMs: config.ORDER_HOLD_MINUTES * 60_000 },
      services.events.recorderFor<OrderEvents>({
        'order.created': view,
        'order.paid': view,
        'order.cancelled': view,
        'order.refunded': view,
      }),
      listSettingsOf(config),
    ),
  routes: restRoutes(ordersRoutes, ({ orders, idempotency, embedding }) => ({ orders, idempotency, embedding })),
  embeds: ordersEmbeds,
  migrations: ordersMigrations,
  graphql: { typeDefs: ordersTypeDefs, resolvers: ordersResolvers },
  eventPayloads: {
    'order.created': OrderView,
    'order.paid': OrderView,
    'order.cancelled': OrderView,
    'order.refunded': OrderView,
  } satisfies EventPayloadsOf<OrderEvents>,
  // Every instance sweeps (DECISIONS §3); the conditional transition cancels each order once.
  workers: ({ orders }: { orders: OrdersService }, { config, log }) =>
    config.ORDER_HOLD_WORKER
      ? [createOrderHoldWorker(orders, { intervalMs: config.ORDER_SWEEP_INTERVAL_MS, log })]
      : [],
});
