import { sql, type ExpressionBuilder } from 'kysely';
import { anyTable, type TableName } from '../../core/db/by-id-statements.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { readRows } from '../../core/db/fast-read.ts';
import { statementCache } from '../../core/db/statement-cache.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { FeedPosition, TypeFilter } from './event.ts';
import type { EventRow, NewEventRow } from './events.table.ts';
import {
  bindsAsIs,
  CREATED_EVENT_STEP,
  eventInsert,
  OWN_TRANSACTION,
  rowInsert,
  rowWithEventInsert,
} from './event-inserts.ts';

/** Namespaces the per-resource advisory locks of `insertEvent` (the first key of the two-key form). */
const RESOURCE_LOCK_SPACE = 0x45_56_54; // "EVT"

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
    if (bindsAsIs(row)) await readRows(trx, eventInsert(trx, !sqlite, row));
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

/** Whether `text` is a statement of `insertRowWithEvent` (it commits a row and its event on its own). */
export const isRowWithEventStatement = (text: string): boolean => text.startsWith(`with "${CREATED_EVENT_STEP}" as`);

/**
 * PostgreSQL: `count` new ids of `table`'s identity column, ascending, taken from its sequence as the
 * column's default would take them (ids are never reused), in one statement.
 */
export async function reserveRowIds(db: Db, table: TableName, count: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select nextval(pg_get_serial_sequence(${table}, 'id'))::int as id from generate_series(1, ${count}::int)`.execute(
    db,
  );
  return rows.map((row) => row.id).sort((a, b) => a - b);
}

/**
 * PostgreSQL: writes `row` (its id reserved by `reserveRowIds`) into `table` and the `*.created` event of it in one
 * statement, so one round trip and no transaction of its own: the two commit together or not at all. The
 * event's place is its writer's transaction id, with no lock, as `insertEvent`'s for a fresh resource.
 */
export async function insertRowWithEvent<Row>(
  db: Db,
  table: TableName,
  row: Record<string, unknown>,
  event: Omit<NewEventRow, 'seq' | 'tx'>,
): Promise<Row> {
  if (bindsAsIs(row) && bindsAsIs(event))
    return firstRow(await readRows(db, rowWithEventInsert(db, table, row, event)));
  const inserted = await anyTable(db)
    .with(CREATED_EVENT_STEP, (db) => db.insertInto('events').values({ ...event, tx: OWN_TRANSACTION }))
    .insertInto(table)
    .values(row)
    .returningAll()
    .executeTakeFirstOrThrow();
  return inserted as Row;
}

/** The one row an insert returned. */
function firstRow<Row>(rows: readonly unknown[]): Row {
  if (rows.length !== 1) throw new Error(`an insert returned ${rows.length} rows, not one`);
  return rows[0] as Row;
}

/**
 * The feed order, `(tx, seq)`. On SQLite `tx` is always 0 (one writer at a time: insert order is commit
 * order), so `seq`, the row id, is the order on its own there and the table has no `(tx, seq)` index to
 * keep up on every write (migration `0014-events-fewer-indexes`).
 */
function placeIs(db: Db, op: '>' | '<' | '<=', place: FeedPosition) {
  return (eb: ExpressionBuilder<Tables, 'events'>) =>
    dialectOf(db) === 'sqlite'
      ? eb('seq', op, place.seq)
      : eb(eb.refTuple('tx', 'seq'), op, eb.tuple(place.tx, place.seq));
}
const feedOrder = (db: Db) => (dialectOf(db) === 'sqlite' ? (['seq'] as const) : (['tx', 'seq'] as const));

/** Writes `row` into `table` (in the caller's transaction), returning it as written. */
export async function insertRow<Row>(db: Db, table: TableName, row: Record<string, unknown>): Promise<Row> {
  if (bindsAsIs(row)) return firstRow(await readRows(db, rowInsert(db, table, row)));
  return (await anyTable(db).insertInto(table).values(row).returningAll().executeTakeFirstOrThrow()) as Row;
}

/**
 * The next events of the feed after `after`, oldest first, in `(tx, seq)` order.
 *
 * PostgreSQL: only events placed below the oldest transaction still running when this statement's
 * snapshot was taken (`tx < xmin`). An event's place is at least its writer's transaction id, so
 * every such writer has ended; a transaction still running, or not yet begun, has an id of at least
 * xmin, so every event it writes sorts after every event returned. A reader that goes on from the
 * last `(tx, seq)` it saw therefore never skips one (README.md). SQLite has one writer at a time:
 * insert order is commit order, and `tx` is 0 throughout.
 */
export async function listEventsAfter(
  db: Db,
  options: { after: FeedPosition | undefined; limit: number; filter: TypeFilter | undefined },
): Promise<EventRow[]> {
  const { after, filter, limit } = options;
  // The consumers' reads (no filter) every turn: compiled once (statement-cache.ts).
  if (!filter) return readRows(db, feedPage(db, undefined, { tx: after?.tx, seq: after?.seq, limit }));
  return feedQuery(db, after, limit)
    .where((eb) =>
      eb.or([
        ...(filter.types.length > 0 ? [eb('type', 'in', filter.types)] : []),
        ...filter.prefixes.map((prefix) => eb('type', 'like', `${prefix}%`)),
      ]),
    )
    .execute();
}

/** The feed after `after` (both parts or neither), in feed order, at most `limit` events. */
function feedQuery(db: Db, after: FeedPosition | undefined, limit: number) {
  let query = db.selectFrom('events').selectAll();
  if (dialectOf(db) === 'postgres')
    query = query.where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`);
  if (after) query = query.where(placeIs(db, '>', after));
  for (const column of feedOrder(db)) query = query.orderBy(column);
  return query.limit(limit);
}

const feedPage = statementCache({
  build: (db, _shape: undefined, p: { tx: number | undefined; seq: number | undefined; limit: number }) =>
    feedQuery(db, p.seq === undefined ? undefined : { tx: p.tx!, seq: p.seq }, p.limit),
  keyOf: () => 'feed page',
});

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
  if (dialectOf(db) === 'postgres')
    query = query.where(sql<boolean>`tx < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`);
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
  const head = await findHead(db);
  await db
    .insertInto('event_consumers')
    .values({ consumer: claim.consumer, ...head, updated_at: claim.now, holder: null, lease_until: null })
    .onConflict((oc) => oc.column('consumer').doNothing())
    .executeTakeFirst();
  return take();
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

/** Moves `consumer` past `position` if `holder` still holds it; false when the lease was taken over. */
export async function advanceConsumer(
  trx: Db,
  move: { consumer: string; holder: string; position: FeedPosition; now: string },
): Promise<boolean> {
  const result = await trx
    .updateTable('event_consumers')
    .set({ tx: move.position.tx, seq: move.position.seq, updated_at: move.now })
    .where('consumer', '=', move.consumer)
    .where('holder', '=', move.holder)
    .executeTakeFirst();
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
