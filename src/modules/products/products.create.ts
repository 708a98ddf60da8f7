import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import { centsOf, hasAtMostTwoDecimals, toProduct, type Product } from './product.ts';
import * as repo from './products.repository.ts';
import { CreateProductInput } from './products.schemas.ts';
import type { ProductRow } from './products.table.ts';

const checkCreate = createChecker<CreateProductInput>(CreateProductInput);

/** Whole cents exactly, past the schema's `multipleOf` (held by ajv to 1e-5 of a cent): cents decide. */
export function assertPriceHasCents<T extends { price?: number | undefined }>(input: T): T {
  if (input.price !== undefined && !hasAtMostTwoDecimals(input.price)) {
    throw AppError.validation([{ field: 'price', message: 'must have at most two decimals' }]);
  }
  return input;
}

/** What a create refused because another product has its `sku`. */
export const skuTaken = () => AppError.conflict('Another product has this sku');

/**
 * The one create of products (DECISIONS §18): a list, each body checked as `POST /products` checks it,
 * then every good one written with its `product.created` event (and revision) by the outbox's list insert
 * (`recordInserts`: the rows, their events and their revisions in a statement each; one row alone is
 * the single create's one statement). A body that fails its checks, or whose `sku` another product has,
 * fails alone: its place in the answer is its error, the others are written. The single `POST` is a list
 * of one; an import's chunk and a batch's creates are longer lists.
 */
export function createProductCreates(
  db: Db,
  events: Pick<EventRecorder<{ 'product.created': Product }>, 'recordInserts'>,
) {
  return async function createProducts(
    actor: Principal | null,
    raws: readonly unknown[],
  ): Promise<(Product | AppError)[]> {
    requireAdmin(actor);
    const timestamp = now();
    const answers: (Product | AppError)[] = new Array(raws.length);
    const rows: Omit<ProductRow, 'id'>[] = [];
    const places: number[] = [];
    raws.forEach((raw, index) => {
      try {
        const input = assertPriceHasCents(checkCreate(raw));
        rows.push({
          name: input.name.trim(),
          category: input.category.trim(),
          price_cents: centsOf(input.price),
          stock: input.stock,
          image: input.image ?? null,
          description: input.description ?? null,
          sku: input.sku ?? null,
          created_at: timestamp,
          updated_at: timestamp,
        });
        places.push(index);
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        answers[index] = error;
      }
    });
    const written = await events.recordInserts(db, 'product.created', repo.productInsert, rows, toProduct);
    written.forEach((row, i) => {
      answers[places[i]!] = row ? toProduct(row) : skuTaken();
    });
    return answers;
  };
}
