import { createPollingWorker, type PollingWorker } from '../../core/jobs/polling-worker.ts';
import type { OrdersService } from './orders.service.ts';

export interface OrderHoldLog {
  info(message: string): void;
  error(object: unknown, message: string): void;
}

/**
 * The order-hold sweep in the server process: at start, then every `intervalMs`, it cancels the pending
 * orders whose hold has run out (ORDER_HOLD_MINUTES), batch after batch. Every instance sweeps; each
 * cancellation is decided by a conditional update, so two sweeping instances cancel an order once.
 */
export function createOrderHoldWorker(
  orders: OrdersService,
  options: { intervalMs: number; log: OrderHoldLog },
): PollingWorker {
  return createPollingWorker({
    name: 'order-hold sweep',
    intervalMs: options.intervalMs,
    log: options.log,
    async step() {
      const { cancelled, more } = await orders.expireOverdueOrders();
      if (cancelled > 0) options.log.info(`Cancelled ${cancelled} pending order(s) whose stock hold ran out`);
      return more;
    },
  });
}
