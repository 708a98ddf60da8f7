import { defineModule, restRoutes } from '../module.ts';
import { createOrderHoldWorker } from './order-hold-worker.ts';
import { ordersRoutes } from './orders.routes.ts';
import { createOrdersService, type OrdersService } from './orders.service.ts';

/** Orders: REST `/orders` (with Idempotency-Key), the state machine, and the order-hold sweep. */
export const ordersModule = defineModule({
  name: 'orders',
  createService: ({ db, config }) =>
    createOrdersService(db, { currency: config.STORE_CURRENCY, holdMs: config.ORDER_HOLD_MINUTES * 60_000 }),
  routes: restRoutes(ordersRoutes, ({ orders, idempotency }) => ({ orders, idempotency })),
  // Every instance sweeps (DECISIONS §3); the conditional transition cancels each order once.
  workers: ({ orders }: { orders: OrdersService }, { config, log }) =>
    config.ORDER_HOLD_WORKER ? [createOrderHoldWorker(orders, { intervalMs: config.ORDER_SWEEP_INTERVAL_MS, log })] : [],
});
