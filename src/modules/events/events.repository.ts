import { sql, type Expression, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { RowInsert } from './created-rows.ts';
import type { FeedPosition, TypeFilter } from './event.ts';
import type { EventRow, NewEventRow } from './events.table.ts';
import {
  bindsAsIs,
  OWN_TRANSACTION,
  readFeedPage,
  rowWithEventQuery,
  runEventInsert,
  runRowInsert,
  runRowWithEventInsert,
} from './events.statements.ts';
import type { AlsoWritten } from './change-writer.ts';
import { rewriteJsonCopies } from '../../core/db/json-copies.ts';
import type { Rewrite, StoredValues } from './stored-copies.ts';
import { belowHorizon, feedOrder, feedQuery, placeIs } from './feed-order.ts';

/** Namespaces the per-resource advisory locks of `insertEvent` (the first key of the two-key form). */
export const RESOURCE_LOCK_SPACE = 0x45_56_54; // "EVT"

/**
 * Writes one event in `trx`, the change's own transaction.
 *
 * PostgreSQL: `tx`, the event's place in the feed, is the writing transaction's id, raised to the
 * place of the resource's latest event when that is higher. The transaction first takes an advisory
 * lock on the resource, held until it ends, so a second writer of the same resource waits until
 * the first has committed (or rolled back) and then sees its event: the resource's events are in
 * commit order, whatever order their transactions got their ids in (README.md).
 */
export async function insertEvent(
  trx: Db,
  row: Omit<NewEventRow, 'seq' | 'tx'>,
  /** The resource is new in `trx` (a first id): no event of it can be placed before this one. */
  fresh: boolean,
): Promise<void> {
  const sqlite = dialectOf(trx) === 'sqlite';
  // SQLite: one writer at a time, `tx` stays 0 and insert order is commit order. PostgreSQL: a resource
  // created in this transaction is invisible to every other until it commits, so nothing else can write
  // its events first: its place is its writer's id, with no lock and no look-up. A later writer of it
  // (having seen it committed) takes the lock and raises its place above this one.
  if (sqlite || fresh) {
    if (bindsAsIs(row)) await runEventInsert(trx, !sqlite, row);
    else
      await trx
        .insertInto('events')
        .values(sqlite ? row : { ...row, tx: OWN_TRANSACTION })
        .execute();
    return;
  }
  await sql`select pg_advisory_xact_lock(${RESOURCE_LOCK_SPACE}, hashtext(${row.resource}))`.execute(trx);
  const latest = sql<number>`(select max(tx) from events where resource = ${row.resource})`;
  await trx
    .insertInto('events')
    .values({ ...row, tx: sql<number>`greatest(${OWN_TRANSACTION}, coalesce(${latest}, 0))` })
    .execute();
}

/**
 * `count` new ids of `table`'s id column, ascending, as its own default would give them (ids are never
 * reused). PostgreSQL: taken from its sequence, in one statement. SQLite: the ids after the last one given
 * (`sqlite_sequence`, AUTOINCREMENT's record of it) or the highest there is; the writing transaction holds
 * the file's one write lock (`begin immediate`), so no other writer can take them before its insert, which
 * moves `sqlite_sequence` past them itself.
 */
export async function reserveRowIds(db: Db, table: string, count: number): Promise<number[]> {
  if (dialectOf(db) === 'sqlite') {
    const { rows } = await sql<{ last: number }>`
      select max(coalesce((select seq from sqlite_sequence where name = ${table}), 0),
                 coalesce((select max(id) from ${sql.table(table)}), 0)) as last`.execute(db);
    const last = Number(rows[0]!.last);
    return Array.from({ length: count }, (_, i) => last + 1 + i);
  }
  const { rows } = await sql<{ id: number }>`
    select nextval(pg_get_serial_sequence(${table}, 'id'))::int as id from generate_series(1, ${count}::int)`.execute(
    db,
  );
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/**
 * PostgreSQL: writes `row` (its id reserved by `reserveRowIds`) by the module's `insert` and the
 * `*.created` event of it in one statement, so one round trip and no transaction of its own: the two
 * commit together or not at all. The event's place is its writer's transaction id, with no lock, as
 * `insertEvent`'s for a fresh resource. The statement takes the writer key before it writes either
 * (feed-horizon.ts, events.statements.ts).
 */
export async function insertCreatedRowWithEvent<Row, New extends object>(
  db: Db,
  insert: RowInsert<Row, New>,
  row: New,
  event: Omit<NewEventRow, 'seq' | 'tx'>,
  /** A row handed by another module to commit with them (a revision): one more step of the statement. */
  also?: AlsoWritten,
): Promise<Row> {
  if (bindsAsIs(row) && bindsAsIs(event) && (!also || bindsAsIs(also.row)))
    return runRowWithEventInsert(db, insert, row, event, also);
  return rowWithEventQuery(db, insert, row, event, also).executeTakeFirstOrThrow();
}

/** Writes `row` by the module's `insert` (in the caller's transaction), returning it as written. */
export async function insertCreatedRow<Row, New extends object>(
  db: Db,
  insert: RowInsert<Row, New>,
  row: New,
): Promise<Row> {
  if (bindsAsIs(row)) return runRowInsert(db, insert, row);
  return insert(db, row).executeTakeFirstOrThrow();
}

/**
 * The next events of the feed after `after`, oldest first, in `(tx, seq)` order.
 *
 * PostgreSQL: only events placed below the horizon of this statement's snapshot (feed-horizon.ts):
 * an event's place is at least its writer's transaction id, every writer placed below it has ended,
 * and every event a transaction still running or not yet begun writes sorts at or after it. A reader
 * that goes on from the last `(tx, seq)` it saw therefore never skips one (README.md). SQLite has one
 * writer at a time: insert order is commit order, and `tx` is 0 throughout.
 */
export async function listEventsAfter(
  db: Db,
  options: { after: FeedPosition | undefined; limit: number; filter: TypeFilter | undefined },
): Promise<EventRow[]> {
  const { after, filter, limit } = options;
  // The consumers' reads (no filter) every turn: compiled once (statement-cache.ts).
  if (!filter) return readFeedPage(db, after, limit);
  return feedQuery(db, after, limit)
    .where((eb) =>
      eb.or([
        ...(filter.types.length > 0 ? [eb('type', 'in', filter.types)] : []),
        ...filter.prefixes.map((prefix) => eb('type', 'like', `${prefix}%`)),
      ]),
    )
    .execute();
}

export async function findPositionOfEventId(db: Db, eventId: string): Promise<FeedPosition | undefined> {
  return db.selectFrom('events').select(['tx', 'seq']).where('event_id', '=', eventId).executeTakeFirst();
}

/** The position of the consumer furthest behind, or undefined when none is registered. */
export async function findSlowestConsumer(db: Db): Promise<FeedPosition | undefined> {
  return db
    .selectFrom('event_consumers')
    .select(['tx', 'seq'])
    .orderBy('tx')
    .orderBy('seq')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Deletes events written before `cutoff`, keeping any a registered consumer has not passed yet.
 *
 * There is no index on `created_at` (one index insert less per event): events are placed in the feed
 * in about the order they are written, so the expired ones are the feed's prefix before the first event
 * written at or after `cutoff`, found by walking the feed's order from the oldest (as many rows as
 * expired). An event stamped earlier than one placed before it (a long transaction, the clock set back)
 * stays until that one expires: kept a little longer, never dropped early.
 */
export async function deleteEventsBefore(db: Db, cutoff: string, keepAfter: FeedPosition | undefined): Promise<number> {
  let firstKept = db.selectFrom('events').select(['tx', 'seq']).where('created_at', '>=', cutoff);
  for (const column of feedOrder(db)) firstKept = firstKept.orderBy(column);
  const first = await firstKept.limit(1).executeTakeFirst();
  let query = db.deleteFrom('events');
  if (first) query = query.where(placeIs(db, '<', first));
  if (keepAfter) query = query.where(placeIs(db, '<=', keepAfter));
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Events kept, for `/metrics`. */
export async function countEvents(db: Db): Promise<number> {
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The feed's last event readers can be given now (the no-skip guard applied), or the start when none. */
export async function findHead(db: Db): Promise<FeedPosition> {
  let query = db.selectFrom('events').select(['tx', 'seq']);
  if (dialectOf(db) === 'postgres') query = query.where(belowHorizon);
  for (const column of feedOrder(db)) query = query.orderBy(column, 'desc');
  return (await query.limit(1).executeTakeFirst()) ?? { tx: 0, seq: 0 };
}

/**
 * Takes or renews `consumer`'s lease for `holder` (when free, run out, or already its own) and returns
 * where the consumer has got to; undefined while another instance holds it. A consumer seen for the first
 * time starts at the feed's head: the events before it existed are not its own.
 */
export async function claimConsumer(
  db: Db,
  claim: { consumer: string; holder: string; now: string; leaseUntil: string },
): Promise<FeedPosition | undefined> {
  const take = () =>
    db
      .updateTable('event_consumers')
      .set({ holder: claim.holder, lease_until: claim.leaseUntil })
      .where('consumer', '=', claim.consumer)
      .where((eb) =>
        eb.or([eb('holder', 'is', null), eb('holder', '=', claim.holder), eb('lease_until', '<', claim.now)]),
      )
      .returning(['tx', 'seq'])
      .executeTakeFirst();
  // One statement each poll once the consumer exists; the first time, register it at the head.
  const taken = await take();
  if (taken) return taken;
  await registerConsumer(db, claim.consumer, claim.now);
  return take();
}

/**
 * Registers `consumer` at the feed's head unless it is registered already: every event written after
 * this returned is after its place (on PostgreSQL the head is below the horizon: an event not visible
 * yet is placed after it).
 */
export async function registerConsumer(db: Db, consumer: string, at: string): Promise<void> {
  const head = await findHead(db);
  await db
    .insertInto('event_consumers')
    .values({ consumer, ...head, updated_at: at, holder: null, lease_until: null })
    .onConflict((oc) => oc.column('consumer').doNothing())
    .executeTakeFirst();
}

/** Where `consumer` has got to, while `holder` holds it (a plain read: no lease renewed); undefined otherwise. */
export function findHeldPosition(db: Db, consumer: string, holder: string): Promise<FeedPosition | undefined> {
  return db
    .selectFrom('event_consumers')
    .select(['tx', 'seq'])
    .where('consumer', '=', consumer)
    .where('holder', '=', holder)
    .executeTakeFirst();
}

/**
 * Moves `consumer` past `position` if `holder` still holds it (and `onlyIf`, when given, holds in the same
 * statement); false when the lease was taken over or `onlyIf` failed.
 */
export async function advanceConsumer(
  trx: Db,
  move: { consumer: string; holder: string; position: FeedPosition; now: string },
  onlyIf?: Expression<SqlBool>,
): Promise<boolean> {
  let update = trx
    .updateTable('event_consumers')
    .set({ tx: move.position.tx, seq: move.position.seq, updated_at: move.now })
    .where('consumer', '=', move.consumer)
    .where('holder', '=', move.holder);
  if (onlyIf) update = update.where(onlyIf);
  const result = await update.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives up `holder`'s lease of `consumer` (at stop), so another instance takes it at once. */
export async function releaseConsumer(db: Db, consumer: string, holder: string): Promise<void> {
  await db
    .updateTable('event_consumers')
    .set({ holder: null, lease_until: null })
    .where('consumer', '=', consumer)
    .where('holder', '=', holder)
    .execute();
}

/** How many events `consumer` has not passed yet (the backlog, for `/metrics`); 0 when unregistered. */
export async function countBehind(db: Db, consumer: string): Promise<number> {
  const position = await db
    .selectFrom('event_consumers')
    .select(['tx', 'seq'])
    .where('consumer', '=', consumer)
    .executeTakeFirst();
  if (!position) return 0;
  const row = await db
    .selectFrom('events')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where(placeIs(db, '>', position))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Erasure (DECISIONS §19): every stored event that may hold the person's values, rewritten where it does. */
export const scrubEvents = (trx: Db, values: StoredValues, rewrite: Rewrite): Promise<void> =>
  rewriteJsonCopies(trx, { table: 'events', key: 'event_id', column: 'data' }, values, rewrite);
