import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation, isUniqueViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { Precondition } from '../../core/precondition.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import { actorOf, assertMayPurge, trashActions, trashRecordOf, type Trash } from '../history/trash.ts';
import { centsOf, hasAtMostTwoDecimals, toProduct, type Product } from './product.ts';
import * as repo from './products.repository.ts';
import { CreateProductInput, type UpdateProductInput } from './products.schemas.ts';
import type { ProductRow, ProductRowUpdate } from './products.table.ts';

/**
 * The products' writes of many rows in a statement each (DECISIONS §18): the one create (a list of
 * bodies), the one update and the one delete (lists of ids); a single `POST`, `PATCH` or `DELETE` is a list
 * of one.
 */

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

export const productNotFound = (id: number) => AppError.notFound(`Product ${id}`);

/** An update's fields as the row's columns: only those sent. */
function rowChanges(input: UpdateProductInput): ProductRowUpdate {
  const changes: ProductRowUpdate = {};
  if (input.name !== undefined) changes.name = input.name.trim();
  if (input.category !== undefined) changes.category = input.category.trim();
  if (input.price !== undefined) changes.price_cents = centsOf(input.price);
  if (input.stock !== undefined) changes.stock = input.stock;
  if (input.image !== undefined) changes.image = input.image;
  if (input.description !== undefined) changes.description = input.description;
  if (input.sku !== undefined) changes.sku = input.sku;
  return changes;
}

/** A column's new value against the stored one (PostgreSQL may hand a bigint column back as text). */
const sameValue = (next: unknown, stored: unknown) =>
  next === stored || (next !== null && stored !== null && String(next) === String(stored));

/** A write that may take a `sku` another product has (409): the whole write fails. */
async function uniqueSku<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw skuTaken();
    throw error;
  }
}

/** Rows locked, changed (or deleted) and recorded per statement: far below either database's limit of bound values. */
const UPDATE_CHUNK = 1_000;
function* chunksOf(ids: readonly number[]): Generator<readonly number[]> {
  for (let start = 0; start < ids.length; start += UPDATE_CHUNK) yield ids.slice(start, start + UPDATE_CHUNK);
}

/**
 * The one update of products (DECISIONS §18): the same checked change (`input`) on each of `ids`
 * (distinct), in one transaction of the outbox (the caller's outer one when open), all or nothing. The
 * rows read and locked, a statement per thousand; then those the change alters (a row it leaves as it is
 * keeps its `updatedAt` and has no event: §10) updated, a statement per thousand, each thousand's
 * `product.updated` events with their revisions by `recordEach` (a statement for the events, one for the
 * revisions; one row's, as a single update records it). The counters and search documents follow the
 * rows (triggers). A missing id is 404, a `precondition` that fails its row stops the whole, a taken
 * `sku` is 409. The single `PATCH` and `PUT` are a list of one; a write by filter, the list of its matches.
 */
export function createProductUpdates(
  db: Db,
  events: Pick<EventRecorder<{ 'product.updated': Product }>, 'transaction' | 'recordEach'>,
) {
  return function updateProducts(
    actor: Principal | null,
    ids: readonly number[],
    input: UpdateProductInput,
    precondition?: Precondition<Product>,
  ): Promise<Product[]> {
    requireAdmin(actor);
    const changes = rowChanges(input);
    const columns = Object.keys(changes) as (keyof ProductRowUpdate & keyof ProductRow)[];
    return uniqueSku(() =>
      events.transaction(db, async (trx) => {
        // Every row locked before any event's lock is taken (recording stays the last lock a write waits for).
        const current = new Map<number, ProductRow>();
        for (const chunk of chunksOf(ids))
          for (const row of await repo.lockProductsByIds(trx, chunk)) current.set(row.id, row);
        const changing: number[] = [];
        for (const id of ids) {
          const row = current.get(id);
          if (!row) throw productNotFound(id);
          precondition?.(toProduct(row));
          if (columns.some((column) => !sameValue(changes[column], row[column]))) changing.push(id);
        }
        // Stamped once the rows are locked: a writer that waited for one stamps its change after the other's.
        const stamped = { ...changes, updated_at: now() };
        const updated = new Map<number, ProductRow>();
        for (const chunk of chunksOf(changing)) {
          for (const row of await repo.updateProductsByIds(trx, chunk, stamped)) updated.set(row.id, row);
          await events.recordEach(
            trx,
            'product.updated',
            chunk.map((id) => toProduct(updated.get(id)!)),
          );
        }
        return ids.map((id) => toProduct(updated.get(id) ?? current.get(id)!));
      }),
    );
  };
}

type DeleteEvents = { 'product.deleted': { id: number } } & TrashEvents;

export interface DeleteOptions {
  /** `?permanent=true`: removed at once, not to the trash (admins), and an id found only in the trash purged. */
  permanent?: boolean | undefined;
}

/**
 * The one delete of products (DECISIONS §18, §19): each of `ids` (distinct) moved to the trash (each its
 * own deletion) or, `permanent`, removed for good, in one transaction of the outbox (the caller's outer
 * one when open), all or nothing. The rows read and locked, a statement per thousand in id order; then
 * per thousand rows: the rows into the trash and out of the table (trash.ts `moveRowsToTrash`), their
 * `product.deleted` events with their revisions by `recordEach` (a statement for the events, one for the
 * revisions; one row's, as a single delete records it). An id not live is skipped (false in the answer;
 * `permanent` purges it from the trash when there), a `precondition` that fails its row stops the whole,
 * and a product order items refer to (orders are financial records) is 409 with nothing written. The
 * single `DELETE` is a list of one; a `DELETE` by filter, the list of its matches.
 */
export function createProductDeletes(db: Db, events: EventRecorder<DeleteEvents>, trash: Trash) {
  const trashed = trashActions(trash, 'product');
  return async function deleteProducts(
    actor: Principal | null,
    ids: readonly number[],
    precondition?: Precondition<Product>,
    options: DeleteOptions = {},
  ): Promise<boolean[]> {
    const principal = requireAdmin(actor);
    assertMayPurge(principal, options.permanent);
    try {
      return await events.transaction(db, async (trx) => {
        // Every row locked before any event's lock is taken (recording stays the last lock a write waits for).
        const current = new Map<number, ProductRow>();
        for (const chunk of chunksOf(ids))
          for (const row of await repo.lockProductsByIds(trx, chunk)) current.set(row.id, row);
        const live = ids.filter((id) => current.has(id));
        if (precondition) for (const id of live) precondition(toProduct(current.get(id)!));
        const purged = new Set<number>();
        if (options.permanent)
          for (const id of ids)
            if (!current.has(id) && (await trashed.purge(trx, id, trashRecordOf(events, trx)))) purged.add(id);
        for (const chunk of chunksOf(live)) {
          if (options.permanent) await repo.deleteProductsByIds(trx, chunk);
          else
            await trash.moveRowsToTrash(
              trx,
              'product',
              chunk.map((id) => current.get(id)!),
              actorOf(principal),
            );
          const deleted = chunk.map((id) => ({ id }));
          await events.recordEach(trx, 'product.deleted', deleted);
          if (options.permanent) await events.recordEach(trx, 'product.purged', deleted);
        }
        return ids.map((id) => current.has(id) || purged.has(id));
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw AppError.conflict('A product that appears in orders cannot be deleted');
      throw error;
    }
  };
}
