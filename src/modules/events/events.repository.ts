import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { FeedPosition, TypeFilter } from './event.ts';
import type { EventRow, NewEventRow } from './events.table.ts';

/** `tx` comes from its column default on PostgreSQL (the writing transaction's id): never bound here. */
export async function insertEvent(trx: Db, row: Omit<NewEventRow, 'seq' | 'tx'>): Promise<void> {
  await trx.insertInto('events').values(row).execute();
}

/**
 * The next events of the feed after `after`, oldest first, in `(tx, seq)` order.
 *
 * PostgreSQL: only events of transactions older than the oldest one still running when this
 * statement's snapshot was taken (`tx < xmin`). Every such transaction has ended, so no event can
 * ever appear below that line again; any transaction still running, or not yet begun, has an id
 * of at least xmin and sorts after every event returned. A reader that goes on from the last
 * `(tx, seq)` it saw therefore never skips one (README.md). SQLite has one writer at a time:
 * insert order is commit order, and `tx` is 0 throughout.
 */
export async function listEventsAfter(
  db: Db,
  options: { after: FeedPosition | undefined; limit: number; filter: TypeFilter | undefined },
): Promise<EventRow[]> {
  let query = db.selectFrom('events').selectAll();
  if (dialectOf(db) === 'postgres') query = query.where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`);
  const { after, filter } = options;
  if (after) query = query.where((eb) => eb(eb.refTuple('tx', 'seq'), '>', eb.tuple(after.tx, after.seq)));
  if (filter) {
    query = query.where((eb) =>
      eb.or([
        ...(filter.types.length > 0 ? [eb('type', 'in', filter.types)] : []),
        ...filter.prefixes.map((prefix) => eb('type', 'like', `${prefix}%`)),
      ]),
    );
  }
  return query.orderBy('tx').orderBy('seq').limit(options.limit).execute();
}

export async function findPositionOfEventId(db: Db, eventId: string): Promise<FeedPosition | undefined> {
  return db.selectFrom('events').select(['tx', 'seq']).where('event_id', '=', eventId).executeTakeFirst();
}

/** The position of the consumer furthest behind, or undefined when none is registered. */
export async function findSlowestConsumer(db: Db): Promise<FeedPosition | undefined> {
  return db.selectFrom('event_consumers').select(['tx', 'seq']).orderBy('tx').orderBy('seq').limit(1).executeTakeFirst();
}

/** Deletes events written before `cutoff`, keeping any a registered consumer has not passed yet. */
export async function deleteEventsBefore(db: Db, cutoff: string, keepAfter: FeedPosition | undefined): Promise<number> {
  let query = db.deleteFrom('events').where('created_at', '<', cutoff);
  if (keepAfter) query = query.where((eb) => eb(eb.refTuple('tx', 'seq'), '<=', eb.tuple(keepAfter.tx, keepAfter.seq)));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Events kept, for `/metrics`. */
export async function countEvents(db: Db): Promise<number> {
  const row = await db.selectFrom('events').select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow();
  return Number(row.count);
}
