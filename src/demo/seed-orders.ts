import type { Insertable } from 'kysely';
import type { OrderItemsTable, OrdersTable } from '../modules/orders/orders.table.ts';
import {
  rowsPerStatement,
  statementsPerTransaction,
  yieldToEventLoop,
  type Loader,
  type TableSummary,
} from './seed-batches.ts';
import { findProductsForItems, insertSeedOrderItems, insertSeedOrders } from './seed.repository.ts';
import { orderPlan, type OrderPlan } from './seed-rows.ts';

export interface OrderSeed {
  seed: number;
  count: number;
  userIds: Int32Array;
  productIds: Int32Array;
  currency: string;
}

/** At most three items per order: one items INSERT per orders INSERT stays within the parameter limit. */
const ITEM_PARAMETERS_PER_ORDER = 3 * 5;

/**
 * Orders and their items, batch by batch: an order's amount and its items' names and prices come
 * from the products as stored, and items need the order ids the database just assigned.
 * Each table gets its own bar and its own time.
 */
export async function seedOrders(loader: Loader, input: OrderSeed): Promise<TableSummary[]> {
  const { db, dialect, progress } = loader;
  const plan = (i: number) => orderPlan(input.seed, i, input.userIds.length, input.productIds.length, input.currency);
  let itemTotal = 0;
  for (let i = 0; i < input.count; i++) itemTotal += plan(i).items.length;

  const orders = { table: 'orders', rows: input.count, seconds: 0 };
  const items = { table: 'order_items', rows: itemTotal, seconds: 0 };
  const orderBar = progress.table('orders', input.count);
  const itemBar = progress.table('order_items', itemTotal);
  const size = rowsPerStatement(dialect, ITEM_PARAMETERS_PER_ORDER);
  const perTransaction = size * statementsPerTransaction(size);
  for (let start = 0; start < input.count; start += perTransaction) {
    const end = Math.min(input.count, start + perTransaction);
    await db.transaction().execute(async (trx) => {
      for (let first = start; first < end; first += size) {
        let clock = performance.now();
        const plans: OrderPlan[] = [];
        for (let i = first; i < Math.min(end, first + size); i++) plans.push(plan(i));
        const wanted = [...new Set(plans.flatMap((p) => p.items.map((item) => input.productIds[item.productIndex]!)))];
        const products = new Map((await findProductsForItems(trx, wanted)).map((p) => [Number(p.id), p]));
        const rows: Insertable<OrdersTable>[] = plans.map((p) => ({
          ...p.row,
          customer_id: input.userIds[p.customerIndex]!,
          amount_cents: p.items.reduce(
            (sum, item) =>
              sum + item.quantity * Number(products.get(input.productIds[item.productIndex]!)!.price_cents),
            0,
          ),
        }));
        const orderIds = await insertSeedOrders(trx, rows);
        orders.seconds += (performance.now() - clock) / 1000;
        orderBar.increment(plans.length);

        clock = performance.now();
        const itemRows: Insertable<OrderItemsTable>[] = plans.flatMap((p, k) =>
          p.items.map((item) => {
            const product = products.get(input.productIds[item.productIndex]!)!;
            return {
              order_id: orderIds[k]!,
              product_id: Number(product.id),
              name: product.name,
              quantity: item.quantity,
              unit_price_cents: Number(product.price_cents),
            };
          }),
        );
        await insertSeedOrderItems(trx, itemRows);
        items.seconds += (performance.now() - clock) / 1000;
        itemBar.increment(itemRows.length);
        await yieldToEventLoop();
      }
    });
  }
  orderBar.stop();
  itemBar.stop();
  return [orders, items];
}
