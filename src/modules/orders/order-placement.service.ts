import { isAdmin, type Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError, type ErrorDetail } from '../../core/errors/app-error.ts';
import type { OrderRow } from './orders.table.ts';
import * as repo from './orders.repository.ts';
import type { CreateOrderInput } from './orders.schemas.ts';

interface Line {
  index: number;
  productId: number;
  quantity: number;
}

/** Checks that need no database: who the order is for, the currency, one line per product. */
function checkRequest(actor: Principal, input: CreateOrderInput, storeCurrency: string): number {
  const customerId = input.customerId ?? actor.userId;
  if (customerId !== actor.userId && !isAdmin(actor)) {
    throw AppError.forbidden('Only an administrator may place an order for another customer');
  }
  const details: ErrorDetail[] = [];
  if (input.currency !== undefined && input.currency !== storeCurrency) {
    details.push({ field: 'currency', message: `must be ${storeCurrency}, the store currency` });
  }
  // Duplicates are refused rather than merged: a client sending two lines for one product has a bug.
  const seen = new Set<number>();
  input.items.forEach((item, index) => {
    if (seen.has(item.productId))
      details.push({ field: `items[${index}].productId`, message: 'appears more than once in this order' });
    seen.add(item.productId);
  });
  if (details.length > 0) throw AppError.validation(details);
  return customerId;
}

/**
 * Creates a pending order and takes its stock in one transaction. Each line takes stock with a
 * conditional update (`stock >= quantity`), so concurrent orders never oversell; if any line is
 * short the whole transaction rolls back and the 409 lists every short line.
 */
export async function placeOrder(
  /** The transaction the order and its event are written in (the outbox's, events/outbox.ts). */
  transaction: <T>(db: Db, work: (trx: Db) => Promise<T>) => Promise<T>,
  db: Db,
  actor: Principal,
  input: CreateOrderInput,
  storeCurrency: string,
  placed: (trx: Db, order: OrderRow) => Promise<void> = async () => {},
): Promise<OrderRow> {
  const customerId = checkRequest(actor, input, storeCurrency);
  // Ascending product ids: concurrent transactions lock products in one order, so never deadlock.
  const lines: Line[] = input.items
    .map((item, index) => ({ index, ...item }))
    .sort((a, b) => a.productId - b.productId);

  return transaction(db, async (trx) => {
    if (customerId !== actor.userId && !(await repo.userExists(trx, customerId))) {
      throw AppError.validation([{ field: 'customerId', message: `no user has id ${customerId}` }]);
    }
    const products = new Map(
      (
        await repo.findProductsForSale(
          trx,
          lines.map((l) => l.productId),
        )
      ).map((p) => [p.id, p]),
    );
    const unknown = lines.filter((line) => !products.has(line.productId));
    if (unknown.length > 0) {
      throw AppError.validation(
        unknown
          .sort((a, b) => a.index - b.index)
          .map((line) => ({ field: `items[${line.index}].productId`, message: `no product has id ${line.productId}` })),
      );
    }

    const short: Line[] = [];
    for (const line of lines) {
      if (!(await repo.takeStock(trx, line.productId, line.quantity))) short.push(line);
    }
    if (short.length > 0) {
      const available = new Map(
        (
          await repo.findProductsForSale(
            trx,
            short.map((l) => l.productId),
          )
        ).map((p) => [p.id, p.stock]),
      );
      throw new AppError('OUT_OF_STOCK', 'Not enough stock for some items; nothing was ordered', {
        details: short
          .sort((a, b) => a.index - b.index)
          .map((line) => ({
            field: `items[${line.index}].quantity`,
            message: `requested ${line.quantity}, only ${available.get(line.productId) ?? 0} in stock`,
          })),
      });
    }

    const priced = input.items.map((item) => {
      const product = products.get(item.productId)!;
      return {
        product_id: product.id,
        name: product.name,
        quantity: item.quantity,
        unit_price_cents: product.price_cents,
      };
    });
    const order = await repo.insertOrder(trx, {
      customer_id: customerId,
      amount_cents: priced.reduce((sum, line) => sum + line.unit_price_cents * line.quantity, 0),
      currency: storeCurrency,
      created_at: now(),
      lines: priced,
    });
    await placed(trx, order);
    return order;
  });
}
