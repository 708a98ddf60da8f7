import { sql, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { columnInParam, idListParam } from '../../core/db/id-list.ts';
import type { RevisionRow, RevisionsTable } from './revisions.table.ts';
import type { Insertable, QueryCreator, SelectQueryBuilder } from 'kysely';
import type { Tables } from '../../core/db/tables.ts';

/** A revision as read, with the state of the item's revision before it (null for its first kept one). */
export type RevisionWithPrevious = RevisionRow & { previous_state: string | null };

export interface AuditFilters {
  actorId?: number | undefined;
  resource?: string | undefined;
  op?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

/** All SQL of revisions (DECISIONS §19). */

/** A revision's insert, as the outbox writes it in a new row's own statement (events' `AlsoWritten`). */
export const revisionInsert = (qc: QueryCreator<Tables>, row: Insertable<RevisionsTable>) =>
  qc.insertInto('revisions').values(row);

export { runRevisionInsert as insertRevision } from './revisions.statements.ts';

/**
 * A revision `base.op` for each post and comment the item's deletion took into the trash with it (not the
 * item itself), each the state of its latest revision (none for an item without one), with `base`'s time,
 * actor and request id: one statement, through the trash's key and the revisions' item index.
 */
export async function insertCascadeRevisions(
  trx: Db,
  resource: string,
  itemId: number,
  base: Insertable<RevisionsTable>,
): Promise<void> {
  const deletion = trx
    .selectFrom('trash_items')
    .select('deletion_id')
    .where('resource', '=', resource as never)
    .where('item_key', '=', String(itemId));
  const latest = trx
    .selectFrom('revisions as r')
    .innerJoin('trash_items as t', (join) =>
      join.onRef('t.resource', '=', 'r.resource').onRef('t.item_id', '=', 'r.item_id'),
    )
    .select((eb) => eb.fn.max('r.id').as('id'))
    .where('t.deletion_id', '=', deletion)
    .where('t.resource', 'in', ['post', 'comment'])
    .where((eb) => eb.not(eb.and([eb('t.resource', '=', resource as never), eb('t.item_id', '=', itemId)])))
    .groupBy(['r.resource', 'r.item_id']);
  await insertRevisionsOfLatest(trx, latest, base);
}

/** `item_id` is one of `itemIds` (not empty): one as `item_id = $1`, more as one list (core/db/id-list.ts). */
const itemIdIn = (db: Db, itemIds: readonly number[]) =>
  itemIds.length === 1
    ? sql<SqlBool>`${sql.ref('item_id')} = ${itemIds[0]}`
    : columnInParam(db, 'item_id', idListParam(db, itemIds));

/**
 * A revision `base.op` of each of `itemIds` (of `resource`) with the state of the item's latest revision
 * (a delete, restore, purge or erase keeps it; an item with none gets none), with `base`'s time, actor and
 * request id, in item id order: one statement, each item's latest by the item index.
 */
export async function insertLatestStateRevisions(
  trx: Db,
  resource: string,
  itemIds: readonly number[],
  base: Insertable<RevisionsTable>,
): Promise<void> {
  const latest = trx
    .selectFrom('revisions')
    .select((eb) => eb.fn.max('id').as('id'))
    .where('resource', '=', resource)
    .where(itemIdIn(trx, itemIds))
    .groupBy('item_id');
  await insertRevisionsOfLatest(trx, latest, base);
}

/**
 * A revision `base.op` per revision `latest` selects (each item's latest), with that revision's item and
 * state and `base`'s time, actor and request id, in item order: one insert-select.
 */
async function insertRevisionsOfLatest(
  trx: Db,
  latest: SelectQueryBuilder<Tables & Record<string, unknown>, never, { id: number }>,
  base: Insertable<RevisionsTable>,
): Promise<void> {
  await trx
    .insertInto('revisions')
    .columns(['resource', 'item_id', 'op', 'at', 'actor_type', 'actor_id', 'request_id', 'state'])
    .expression(
      trx
        .selectFrom('revisions as p')
        .select((eb) => [
          'p.resource',
          'p.item_id',
          eb.val(base.op).as('op'),
          eb.val(base.at).as('at'),
          eb.val(base.actor_type).as('actor_type'),
          eb.val(base.actor_id ?? null).as('actor_id'),
          eb.val(base.request_id ?? null).as('request_id'),
          'p.state',
        ])
        .where('p.id', 'in', latest)
        .orderBy('p.resource')
        .orderBy('p.item_id'),
    )
    .execute();
}

/** The state of the item's latest revision (a delete, restore or purge keeps it), or undefined. */
export async function findLatestState(db: Db, resource: string, itemId: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('revisions')
    .select('state')
    .where('resource', '=', resource)
    .where('item_id', '=', itemId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.state;
}

const previousState = sql<string | null>`(select p.state from revisions as p
  where p.resource = revisions.resource and p.item_id = revisions.item_id and p.id < revisions.id
  order by p.id desc limit 1)`.as('previous_state');

/** An item's revisions newest first, below `beforeId`, at most `limit` (by `(resource, item_id, id)`). */
export async function listItemRevisions(
  db: Db,
  resource: string,
  itemId: number,
  beforeId: number | undefined,
  limit: number,
): Promise<RevisionWithPrevious[]> {
  let query = db
    .selectFrom('revisions')
    .selectAll('revisions')
    .select(previousState)
    .where('resource', '=', resource)
    .where('item_id', '=', itemId);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/** One revision of an item. */
export async function findRevision(
  db: Db,
  resource: string,
  itemId: number,
  rev: number,
): Promise<RevisionRow | undefined> {
  return db
    .selectFrom('revisions')
    .selectAll()
    .where('id', '=', rev)
    .where('resource', '=', resource)
    .where('item_id', '=', itemId)
    .executeTakeFirst();
}

/** Every revision newest first (the audit), filtered, below `beforeId`, at most `limit`. */
export async function listAudit(
  db: Db,
  filters: AuditFilters,
  beforeId: number | undefined,
  limit: number,
): Promise<RevisionWithPrevious[]> {
  let query = db.selectFrom('revisions').selectAll('revisions').select(previousState);
  if (filters.actorId !== undefined) query = query.where('actor_id', '=', filters.actorId);
  if (filters.resource !== undefined) query = query.where('resource', '=', filters.resource);
  if (filters.op !== undefined) query = query.where('op', '=', filters.op);
  if (filters.from !== undefined) query = query.where('at', '>=', filters.from);
  if (filters.to !== undefined) query = query.where('at', '<', filters.to);
  if (beforeId !== undefined) query = query.where('id', '<', beforeId);
  return query.orderBy('id', 'desc').limit(limit).execute();
}

/**
 * Removes up to `limit` revisions older than `cutoff`; returns how many. Oldest first by time, so the time
 * index finds them and stops at `limit`: an order by key would walk every newer revision when none is aged.
 */
export async function deleteRevisionsBefore(db: Db, cutoff: string, limit: number): Promise<number> {
  const ids = db.selectFrom('revisions').select('id').where('at', '<', cutoff).orderBy('at').limit(limit);
  const result = await db.deleteFrom('revisions').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The keys of the next `limit` revisions after `afterId`: how many, and the last (undefined when none). */
export async function revisionKeysAfter(
  db: Db,
  afterId: number,
  limit: number,
): Promise<{ count: number; last: number | undefined }> {
  const rows = await db
    .selectFrom('revisions')
    .select('id')
    .where('id', '>', afterId)
    .orderBy('id')
    .limit(limit)
    .execute();
  return { count: rows.length, last: rows.at(-1)?.id };
}

/**
 * Of every item with a revision in `(afterId, uptoId]`, removes its revisions but its newest `keep`: one
 * statement, the written range by the key, each item's revisions by the item index, newest first, past
 * the kept ones. A turn reads what was written and each written item's revisions, never the table:
 * PostgreSQL joins each item to its own index range (`lateral` with `offset`, which no plan can turn
 * into a hash join over every revision); SQLite's nested loop reads the item index for each as it is.
 */
export async function deleteRevisionsBeyondKeep(
  db: Db,
  afterId: number,
  uptoId: number,
  keep: number,
): Promise<number> {
  const written = sql`select distinct resource, item_id from revisions where id > ${afterId} and id <= ${uptoId}`;
  const result =
    dialectOf(db) === 'postgres'
      ? await sql`
    with written as (${written})
    delete from revisions where id in (
      select beyond.id from written cross join lateral (
        select r.id from revisions as r where r.resource = written.resource and r.item_id = written.item_id
        order by r.id desc offset ${keep}
      ) as beyond
    )`.execute(db)
      : await sql`
    with written as (${written})
    delete from revisions where id in (
      select id from (
        select r.id, row_number() over (partition by r.resource, r.item_id order by r.id desc) as place
        from written join revisions as r on r.resource = written.resource and r.item_id = written.item_id
      ) as ranked
      where place > ${keep}
    )`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}
