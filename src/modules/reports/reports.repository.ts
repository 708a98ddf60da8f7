import type { ExpressionBuilder } from 'kysely';
import { dialectOf, type Db } from '../../core/db/database.ts';
import type { Tables } from '../../core/db/tables.ts';
import type { ReportJobRow, ReportType } from './report.ts';

/** All SQL of report jobs: queueing, claiming with a lease, and recording the outcome. */

export function insertJob(db: Db, job: { type: ReportType; params: string; requestedBy: number; at: string }): Promise<ReportJobRow> {
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

/**
 * Claims the oldest claimable job for `workerId` until `leaseUntil`, in one statement. The outer
 * condition repeats the inner one, so of two instances racing for a job only one updates it;
 * on PostgreSQL `FOR UPDATE SKIP LOCKED` also lets the other move straight on to the next job.
 */
export function claimNextJob(db: Db, workerId: string, at: string, leaseUntil: string): Promise<ReportJobRow | undefined> {
  let candidate = db.selectFrom('report_jobs').select('id').where(claimable(at)).orderBy('id').limit(1);
  if (dialectOf(db) === 'postgres') candidate = candidate.forUpdate().skipLocked();
  return db
    .updateTable('report_jobs')
    .set({ status: 'running', locked_by: workerId, locked_until: leaseUntil, updated_at: at })
    .where('id', 'in', candidate)
    .where(claimable(at))
    .returningAll()
    .executeTakeFirst();
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
