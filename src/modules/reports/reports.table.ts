import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

/**
 * The report_jobs table and its row type, in the database's own snake_case
 * (only repositories see rows). They join the database type `Tables` of core/db/tables.ts below.
 */
export interface ReportJobsTable {
  id: Generated<number>;
  type: 'sales' | 'users' | 'content';
  params: string;
  status: 'queued' | 'running' | 'done' | 'failed';
  result: string | null;
  error: string | null;
  requested_by: number | null;
  locked_by: string | null;
  locked_until: Timestamp | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    report_jobs: ReportJobsTable;
  }
}

export type ReportJobRow = Selectable<ReportJobsTable>;
