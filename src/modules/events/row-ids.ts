import type { Db } from '../../core/db/database.ts';
import { reserveRowIds } from './events.repository.ts';

/**
 * PostgreSQL: the ids of new rows written with their `*.created` event (`recordInsert`), which needs the
 * id before the insert. Taking each from the sequence was a round trip of its own, a measurable share
 * of a mixed load's throughput on PostgreSQL; this takes `blockSize` at a time per table and hands
 * them out in order, as a sequence's own `CACHE` does for a session.
 *
 * As with `CACHE`, ids stay unique and are never reused, but two processes writing at once interleave
 * their blocks (one's later row may have a lower id than the other's earlier one), and the ids left in
 * a block when the process stops are never used. Nothing orders by id alone across writers: lists go by
 * their sort and then id, the feed by its own place.
 */
export function createRowIdReserve(blockSize: number) {
  const reserved = new Map<string, number[]>();
  const refills = new Map<string, Promise<void>>();

  function refill(db: Db, table: string): Promise<void> {
    let pending = refills.get(table);
    if (!pending) {
      pending = reserveRowIds(db, table, blockSize)
        .then((ids) => {
          reserved.set(table, [...(reserved.get(table) ?? []), ...ids]);
        })
        .finally(() => refills.delete(table));
      refills.set(table, pending);
    }
    return pending;
  }

  /** The next id of `table`: from this process's block, which is refilled (one statement) when empty. */
  return async function nextRowId(db: Db, table: string): Promise<number> {
    for (;;) {
      const id = reserved.get(table)?.shift();
      if (id !== undefined) return id;
      await refill(db, table);
    }
  };
}
