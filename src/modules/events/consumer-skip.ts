import { sql, type Expression, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { FeedPosition } from './event.ts';
import { belowHorizon } from './feed-order.ts';

/**
 * The feed's last event (below the horizon on PostgreSQL) and whether `onlyIf` holds, in one read (one
 * snapshot), without reading the events themselves.
 */
export async function readFeedEnd(
  db: Db,
  onlyIf: Expression<SqlBool>,
): Promise<{ holds: boolean; last: FeedPosition | undefined }> {
  const last =
    dialectOf(db) === 'postgres'
      ? sql`select "tx", "seq" from "events" where ${belowHorizon} order by "tx" desc, "seq" desc limit 1`
      : sql`select "tx", "seq" from "events" order by "seq" desc limit 1`;
  const { rows } = await sql<{ holds: unknown; tx: unknown; seq: unknown }>`
    select ${onlyIf} as "holds", "last"."tx", "last"."seq"
    from (select 1 as "one") as "here" left join (${last}) as "last" on true`.execute(db);
  const row = rows[0]!;
  const holds = row.holds === true || Number(row.holds) === 1;
  return { holds, last: row.seq === null ? undefined : { tx: Number(row.tx), seq: Number(row.seq) } };
}

/** `a` before `b` in the feed order (SQLite: `seq` alone, `tx` is always 0 there). */
export const isBefore = (a: FeedPosition, b: FeedPosition): boolean => a.tx < b.tx || (a.tx === b.tx && a.seq < b.seq);
