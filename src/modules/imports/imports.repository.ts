import type { Expression, ExpressionBuilder, Insertable, SqlBool } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { ImportErrorsTable, ImportRow, ImportRowsTable, ImportsTable } from './imports.table.ts';

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
  await db.deleteFrom('import_rows').where('import_id', '=', id).execute();
  await db.deleteFrom('imports').where('id', '=', id).execute();
}

export async function updateImport(db: Db, id: number, changes: Partial<ImportRow>): Promise<ImportRow | undefined> {
  return db.updateTable('imports').set(changes).where('id', '=', id).returningAll().executeTakeFirst();
}

/** The next `limit` stored rows after `position`, in line order. */
export function readRowsAfter(db: Db, id: number, position: number, limit: number) {
  return db
    .selectFrom('import_rows')
    .select(['line', 'data'])
    .where('import_id', '=', id)
    .where('line', '>', position)
    .orderBy('line')
    .limit(limit)
    .execute();
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

/** Reads the job inside a chunk's transaction, locking it on PostgreSQL (a cancel waits for the chunk). */
export function lockImport(db: Db, id: number): Promise<ImportRow | undefined> {
  const query = db.selectFrom('imports').selectAll().where('id', '=', id);
  return (dialectOf(db) === 'postgres' ? query.forUpdate() : query).executeTakeFirst();
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
