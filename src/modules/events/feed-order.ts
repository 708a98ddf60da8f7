import { sql, type Expression, type ExpressionBuilder } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { FeedPosition } from './event.ts';
import { FEED_HORIZON } from './feed-horizon.ts';

/**
 * The feed order, `(tx, seq)`. On SQLite `tx` is always 0 (one writer at a time: insert order is commit
 * order), so `seq`, the row id, is the order on its own there and the table has no `(tx, seq)` index to
 * keep up on every write (migration `0014-events-fewer-indexes`).
 */
/** A place in the feed, or its parts bound as a compiled statement's params (events.statements.ts). */
export type FeedPlace = FeedPosition | { tx: Expression<number>; seq: Expression<number> };

export function placeIs(db: Db, op: '>' | '<' | '<=', place: FeedPlace) {
  return (eb: ExpressionBuilder<Tables, 'events'>) =>
    dialectOf(db) === 'sqlite'
      ? eb('seq', op, place.seq)
      : eb(eb.refTuple('tx', 'seq'), op, eb.tuple(place.tx, place.seq));
}

export const feedOrder = (db: Db) => (dialectOf(db) === 'sqlite' ? (['seq'] as const) : (['tx', 'seq'] as const));

/** PostgreSQL: only the events placed below the horizon of the reading statement (feed-horizon.ts). */
export const belowHorizon = sql<boolean>`tx < ${FEED_HORIZON}`;

/**
 * The feed after `after` (both parts or neither), in feed order, at most `limit` events; on PostgreSQL
 * only those below the horizon. SQLite has one writer at a time: insert order is commit order.
 */
export function feedQuery(db: Db, after: FeedPlace | undefined, limit: number | Expression<number>) {
  let query = db.selectFrom('events').selectAll();
  if (dialectOf(db) === 'postgres') query = query.where(belowHorizon);
  if (after) query = query.where(placeIs(db, '>', after));
  for (const column of feedOrder(db)) query = query.orderBy(column);
  return query.limit(limit);
}
