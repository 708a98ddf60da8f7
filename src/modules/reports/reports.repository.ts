import type { ExpressionBuilder } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { ReportType } from './report.ts';
import type { ReportJobRow } from './reports.table.ts';

/** All SQL of report jobs: queueing, claiming with a lease, and recording the outcome. */

export function insertJob(
  db: Db,
  job: { type: ReportType; params: string; requestedBy: number; at: string },
): Promise<ReportJobRow> {
  return db
    .insertInto('report_jobs')
    .values({
      type: job.type,
      params: job.params,
      status: 'queued',
      result: null,
      error: null,
      requested_by: job.requestedBy,
      locked_by: null,
      locked_until: null,
      created_at: job.at,
      updated_at: job.at,
      finished_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function findJobById(db: Db, id: number): Promise<ReportJobRow | undefined> {
  return db.selectFrom('report_jobs').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Queued jobs, and running jobs whose lease ran out (their worker died or hung). */
const claimable = (at: string) => (eb: ExpressionBuilder<Tables, 'report_jobs'>) =>
  eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('locked_until', '<', at)])]);

function markClaimed(db: Db, workerId: string, at: string, leaseUntil: string) {
  return db
    .updateTable('report_jobs')
    .set({ status: 'running', locked_by: workerId, locked_until: leaseUntil, updated_at: at })
    .where(claimable(at))
    .returningAll();
}

/**
 * Claims the oldest claimable job for `workerId` until `leaseUntil`. Every claim repeats the
 * claimable condition in its UPDATE, so of two instances racing for a job only one gets it.
 * PostgreSQL: the job is picked with `FOR UPDATE SKIP LOCKED` in its own transaction (another
 * instance moves straight on to the next job); picking it in a subquery of the UPDATE could
 * re-run the subquery on a concurrent change and claim two rows at once.
 * SQLite: one UPDATE statement, atomic because writers are serialised.
 */
export async function claimNextJob(
  db: Db,
  workerId: string,
  at: string,
  leaseUntil: string,
): Promise<ReportJobRow | undefined> {
  const next = () => db.selectFrom('report_jobs').select('id').where(claimable(at)).orderBy('id').limit(1);
  if (dialectOf(db) !== 'postgres') {
    return markClaimed(db, workerId, at, leaseUntil).where('id', 'in', next()).executeTakeFirst();
  }
  return db.transaction().execute(async (trx) => {
    const job = await trx
      .selectFrom('report_jobs')
      .select('id')
      .where(claimable(at))
      .orderBy('id')
      .limit(1)
      .forUpdate()
      .skipLocked()
      .executeTakeFirst();
    if (!job) return undefined;
    return markClaimed(trx, workerId, at, leaseUntil).where('id', '=', job.id).executeTakeFirst();
  });
}

/** Records the outcome only while this worker still holds the job, so a late, superseded run is ignored. */
export async function finishJob(
  db: Db,
  id: number,
  workerId: string,
  outcome: { status: 'done' | 'failed'; result: string | null; error: string | null; at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('report_jobs')
    .set({
      status: outcome.status,
      result: outcome.result,
      error: outcome.error,
      locked_by: null,
      locked_until: null,
      updated_at: outcome.at,
      finished_at: outcome.at,
    })
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where('locked_by', '=', workerId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The queue's depth and the creation time of its oldest queued job (status index), for `/metrics`. */
export async function queuedJobStats(db: Db): Promise<{ queued: number; oldestCreatedAt: string | null }> {
  const row = await db
    .selectFrom('report_jobs')
    .select((eb) => [eb.fn.countAll<number>().as('queued'), eb.fn.min('created_at').as('oldest')])
    .where('status', '=', 'queued')
    .executeTakeFirst();
  return { queued: Number(row?.queued ?? 0), oldestCreatedAt: (row?.oldest as string | null | undefined) ?? null };
}
