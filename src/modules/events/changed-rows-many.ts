import { sql } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { ChangeWriter } from './change-writer.ts';
import { insertAlsoWritten } from './created-rows-many.ts';
import { EVENT_TYPES } from './event.ts';
import { OWN_TRANSACTION } from './events.statements.ts';
import type { NewEventRow } from './events.table.ts';
import { RESOURCE_LOCK_SPACE } from './events.repository.ts';

/** Where an event goes: whose events it is ordered with, and whether it can be its resource's first. */

/**
 * Types whose resource gets a new id in the writing transaction (ids are never reused), so no other
 * transaction can have written its events: a like's key (comment, user) comes back after an unlike.
 */
export const FIRST_EVENT_TYPES = new Set<string>(
  EVENT_TYPES.filter((type) => type.endsWith('.created') && type !== 'like.created'),
);

/** Whose events must stay in order: the resource named by the type and `data`'s ids. */
export function resourceOf(type: string, data: Record<string, unknown>): string {
  const resource = type.split('.')[0]!;
  if (data.id !== undefined) return `${resource}:${String(data.id)}`;
  return `${resource}:${String(data.commentId)}:${String(data.userId)}`;
}

/**
 * The events of many resources' changes (a list update), one each (`datas`: each one's event data;
 * `eventRow`: its event's row), in one statement, each placed as `insertEvent` places one
 * (events.repository.ts): on PostgreSQL the advisory locks of all their resources first (one statement,
 * in one order, so two such lists cannot each hold a lock the other waits for), then each event's `tx`
 * raised to its resource's latest event's when that is higher (none: its writer's id), so every
 * resource's events stay in commit order. SQLite: one writer at a time, insert order is commit order.
 * Then what `changeWriter` writes with each (revisions): the rows it hands in one statement, the others
 * by its `writtenEach`, all at once.
 */
export async function insertChangedEvents(
  trx: Db,
  type: string,
  datas: readonly Record<string, unknown>[],
  eventRow: (type: string, data: Record<string, unknown>) => Omit<NewEventRow, 'seq' | 'tx'>,
  changeWriter: ChangeWriter | undefined,
): Promise<void> {
  if (datas.length === 0) return;
  const rows = datas.map((data) => eventRow(type, data));
  if (dialectOf(trx) === 'sqlite') await trx.insertInto('events').values(rows).execute();
  else {
    const resources = [...new Set(rows.map((row) => row.resource))].sort();
    // `unnest` walks the array in its order: the locks are taken in that one order.
    await sql`select pg_advisory_xact_lock(${RESOURCE_LOCK_SPACE}, hashtext(r)) from unnest(${resources}::text[]) as r`.execute(
      trx,
    );
    const latest = (resource: string) => sql<number>`(select max(tx) from events where resource = ${resource})`;
    await trx
      .insertInto('events')
      .values(
        rows.map((row) => ({
          ...row,
          tx: sql<number>`greatest(${OWN_TRANSACTION}, coalesce(${latest(row.resource)}, 0))`,
        })),
      )
      .execute();
  }
  if (changeWriter)
    await insertAlsoWritten(
      trx,
      datas,
      (data) => changeWriter.stateRow(type, data),
      (rest) => changeWriter.writtenEach(trx, type, rest),
    );
}
