import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import type { Db } from '../../core/db/database.ts';
import { isForeignKeyViolation } from '../../core/db/db-errors.ts';
import { AppError } from '../../core/errors/app-error.ts';
import type { Precondition } from '../../core/precondition.ts';
import type { EventRecorder } from '../events/event-recorder.ts';
import type { TrashEvents } from '../history/trash.representation.ts';
import { actorOf, assertMayPurge, trashActions, trashRecordOf, type Trash } from '../history/trash.ts';
import { toProduct, type Product } from './product.ts';
import * as repo from './products.repository.ts';
import type { ProductRow } from './products.table.ts';
import { chunksOf } from './products.writes-many.ts';

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
