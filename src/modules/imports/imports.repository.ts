import { sql, type Expression, type ExpressionBuilder, type Insertable, type SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import { now } from '../../core/clock.ts';
import type {
  ImportChunksTable,
  ImportErrorsTable,
  ImportRow,
  ImportRowsTable,
  ImportsTable,
} from './imports.table.ts';

/** All SQL of imports: the job, its stored rows, its error report, and the workers' claims. */

export function insertImport(db: Db, row: Insertable<ImportsTable>): Promise<ImportRow> {
  return db.insertInto('imports').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findImportById(db: Db, id: number): Promise<ImportRow | undefined> {
  return db.selectFrom('imports').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findImportByKey(db: Db, ownerId: number, key: string): Promise<ImportRow | undefined> {
  return db
    .selectFrom('imports')
    .selectAll()
    .where('owner_id', '=', ownerId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export async function insertImportRows(db: Db, rows: ImportRowsTable[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('import_rows').values(rows).execute();
}

export async function insertImportErrors(db: Db, rows: ImportErrorsTable[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('import_errors').values(rows).execute();
}

export async function deleteImport(db: Db, id: number): Promise<void> {
  await db.deleteFrom('import_errors').where('import_id', '=', id).execute();
  await db.deleteFrom('import_chunks').where('import_id', '=', id).execute();
  await db.deleteFrom('import_rows').where('import_id', '=', id).execute();
  await db.deleteFrom('imports').where('id', '=', id).execute();
}

export async function updateImport(db: Db, id: number, changes: Partial<ImportRow>): Promise<ImportRow | undefined> {
  return db.updateTable('imports').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The next `limit` stored rows after `position` (and before line `before`, when given), in line order. */
export function readRowsAfter(db: Db, id: number, position: number, limit: number, before?: number) {
  const query = db
    .selectFrom('import_rows')
    .select(['line', 'data'])
    .where('import_id', '=', id)
    .where('line', '>', position);
  return (before === undefined ? query : query.where('line', '<', before)).orderBy('line').limit(limit).execute();
}

/** True when a stored row of the job lies after `position` (and before line `before`, when given). */
async function hasRowsBetween(db: Db, id: number, position: number, before?: number): Promise<boolean> {
  return (await readRowsAfter(db, id, position, 1, before)).length > 0;
}

export function readErrors(db: Db, id: number, afterLine: number, limit: number) {
  return db
    .selectFrom('import_errors')
    .select(['line', 'field', 'message'])
    .where('import_id', '=', id)
    .where('line', '>', afterLine)
    .orderBy('line')
    .limit(limit)
    .execute();
}

/**
 * PostgreSQL: the first key of the two-key advisory lock a job's writers take before its row ("IMP"; the
 * events' keys are "EVT" and "OBX"). Its waiters queue in order, which the row's lock does not give: a share
 * lock on a row is granted past an UPDATE waiting for it, so lanes starting chunk after chunk could keep a
 * cancel waiting until their step ended. Behind the key, a lane that starts after a cancel began waits for it.
 */
const IMPORT_LOCK_SPACE = 0x49_4d_50;

/** Reads the job inside a chunk's transaction, locking it on PostgreSQL (a cancel waits for the chunk). */
export async function lockImport(db: Db, id: number): Promise<ImportRow | undefined> {
  const query = db.selectFrom('imports').selectAll().where('id', '=', id);
  if (dialectOf(db) !== 'postgres') return query.executeTakeFirst();
  await sql`select pg_advisory_xact_lock(${IMPORT_LOCK_SPACE}, ${id})`.execute(db);
  return query.forUpdate().executeTakeFirst();
}

/**
 * Reads the job in a lane's transaction (IMPORT_LANES), sharing its locks on PostgreSQL (the key and the
 * row): lanes do not wait for each other, but a cancel (lockImport) waits for the chunks in flight, and a
 * lane starting after a cancel began waits for it and reads what it wrote.
 */
export async function shareImport(db: Db, id: number): Promise<ImportRow | undefined> {
  const query = db.selectFrom('imports').selectAll().where('id', '=', id);
  if (dialectOf(db) !== 'postgres') return query.executeTakeFirst();
  await sql`select pg_advisory_xact_lock_shared(${IMPORT_LOCK_SPACE}, ${id})`.execute(db);
  // The row's share lock as well: a claim taking the job over (an UPDATE without the key) waits for the
  // chunks in flight, so the new worker sees every chunk the old one committed.
  return query.forShare().executeTakeFirst();
}

export async function insertImportChunk(db: Db, chunk: ImportChunksTable): Promise<void> {
  await db.insertInto('import_chunks').values(chunk).execute();
}

/** The job's done chunks not folded yet (all after its position), in line order. */
export function doneChunks(db: Db, id: number) {
  return db
    .selectFrom('import_chunks')
    .select(['first_line', 'last_line', 'created', 'updated', 'failed'])
    .where('import_id', '=', id)
    .orderBy('first_line')
    .execute();
}

/**
 * The job with the counts of its chunks committed and not folded yet added in: one statement, so a fold
 * committing meanwhile is seen whole or not at all, and the counts are exact while lanes write.
 */
export async function findImportWithProgress(db: Db, id: number): Promise<ImportRow | undefined> {
  const sum = (eb: ExpressionBuilder<Tables, 'imports'>, column: 'created' | 'updated' | 'failed') =>
    eb
      .selectFrom('import_chunks')
      .select((inner) => inner.fn.coalesce(inner.fn.sum<number | string>(column), inner.lit(0)).as(column))
      .whereRef('import_chunks.import_id', '=', 'imports.id');
  const job = await db
    .selectFrom('imports')
    .selectAll('imports')
    .select((eb) => [
      sum(eb, 'created').as('more_created'),
      sum(eb, 'updated').as('more_updated'),
      sum(eb, 'failed').as('more_failed'),
    ])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!job) return undefined;
  const { more_created, more_updated, more_failed, ...row } = job;
  return {
    ...row,
    rows_created: row.rows_created + Number(more_created ?? 0),
    rows_updated: row.rows_updated + Number(more_updated ?? 0),
    rows_failed: row.rows_failed + Number(more_failed ?? 0),
  };
}

/**
 * Writes `job` (its position and counts as the caller moved them) with the done chunks that follow its
 * position folded in: each chunk with no stored row between the position and its first line moves the
 * position to its last line and adds its counts; the folded chunks go. A running job with no stored row
 * left after its position is done. Inside a transaction that holds the job's row (lockImport).
 */
export async function foldChunks(db: Db, job: ImportRow, changes: Partial<ImportRow> = {}): Promise<ImportRow> {
  const moved = { ...job, ...changes };
  const folded: number[] = [];
  for (const chunk of await doneChunks(db, job.id)) {
    if (await hasRowsBetween(db, job.id, moved.position, chunk.first_line)) break;
    moved.position = chunk.last_line;
    moved.rows_created += chunk.created;
    moved.rows_updated += chunk.updated;
    moved.rows_failed += chunk.failed;
    folded.push(chunk.first_line);
  }
  if (folded.length > 0)
    await db.deleteFrom('import_chunks').where('import_id', '=', job.id).where('first_line', 'in', folded).execute();
  const finished = moved.status === 'running' && !(await hasRowsBetween(db, job.id, moved.position));
  const done = finished ? { status: 'done' as const, finished_at: now(), locked_by: null, locked_until: null } : {};
  const { position, rows_created, rows_updated, rows_failed } = moved;
  return (await updateImport(db, job.id, { ...changes, position, rows_created, rows_updated, rows_failed, ...done }))!;
}

type Condition = (eb: ExpressionBuilder<Tables, 'imports'>) => Expression<SqlBool>;

/** Queued jobs, and running ones whose lease ran out (their worker died, or a failed chunk waits for its retry). */
const claimable =
  (at: string): Condition =>
  (eb) =>
    eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('locked_until', '<', at)])]);

/** The running job `workerId` holds (it goes on with it chunk after chunk), if any. */
const heldBy =
  (workerId: string): Condition =>
  (eb) =>
    eb.and([eb('status', '=', 'running'), eb('locked_by', '=', workerId)]);

/**
 * Claims a job for `workerId` until `leaseUntil`: the one it holds first, else a claimable one; the
 * condition repeated in the UPDATE (one winner).
 */
export async function claimImport(db: Db, workerId: string, at: string, leaseUntil: string) {
  const pick = (where: Condition) =>
    db.selectFrom('imports').select('id').where(where).orderBy('id').limit(1).executeTakeFirst();
  const candidate = (await pick(heldBy(workerId)))?.id ?? (await pick(claimable(at)))?.id;
  if (candidate === undefined) return undefined;
  return db
    .updateTable('imports')
    .set({ status: 'running', locked_by: workerId, locked_until: leaseUntil })
    .where('id', '=', candidate)
    .where((eb) => eb.or([heldBy(workerId)(eb), claimable(at)(eb)]))
    .returningAll()
    .executeTakeFirst();
}

/**
 * Removes up to `limit` stored rows of one finished job (done, failed or cancelled): its upload has served,
 * and a store that kept every file ever imported would grow by each one. The job and its error report stay.
 * Returns how many went.
 */
export async function clearFinishedUpload(db: Db, limit: number): Promise<number> {
  // The finished jobs (a small table) probed for a stored row each, by the key: never a walk through the
  // rows of a job still running or uploading.
  const job = await db
    .selectFrom('imports')
    .select('id')
    .where('status', 'in', ['done', 'failed', 'cancelled'])
    .where(({ exists, selectFrom }) =>
      exists(selectFrom('import_rows').select('line').whereRef('import_rows.import_id', '=', 'imports.id')),
    )
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  if (!job) return 0;
  const first = await db
    .selectFrom('import_rows')
    .select('line')
    .where('import_id', '=', job.id)
    .orderBy('line')
    .limit(1)
    .executeTakeFirst();
  // Another worker cleared it in between.
  if (!first) return 0;
  const result = await db
    .deleteFrom('import_rows')
    .where('import_id', '=', job.id)
    .where('line', '<', first.line + limit)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * PostgreSQL: the planner's statistics of `table` (an import's resource: its own table) brought up to date
 * after a job wrote `written` rows, when that is as many as autovacuum's own default rule asks for (50 rows
 * and a tenth of the table). Until then a list of the new rows may be planned for the table as it was
 * (a category of no rows: all its matches read and sorted for each page); autovacuum may be off, or an
 * export may start before it runs.
 */
export async function refreshStatistics(db: Db, table: string, written: number): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  const { rows } = await sql<{ tuples: number }>`
    select greatest(reltuples, 0)::float8 as tuples from pg_class where oid = to_regclass(${table})`.execute(db);
  const tuples = rows[0]?.tuples;
  if (tuples === undefined || written < 50 + 0.1 * Number(tuples)) return;
  await sql`analyze ${sql.table(table)}`.execute(db);
}

/**
 * PostgreSQL: the transactions this database has ended so far (committed and rolled back), as its
 * statistics show them (database-load.ts): whether it serves other work besides an import.
 */
export async function countTransactions(db: Db): Promise<number> {
  const { rows } = await sql<{ ended: string }>`
    select xact_commit + xact_rollback as ended from pg_stat_database where datname = current_database()`.execute(db);
  return Number(rows[0]?.ended ?? 0);
}
