import type { ReportJobRow } from './reports.table.ts';

export type ReportType = ReportJobRow['type'];
export type ReportStatus = ReportJobRow['status'];

export const REPORT_TYPES = ['sales', 'users', 'content'] as const satisfies readonly ReportType[];
export const REPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const satisfies readonly ReportStatus[];

/** The time range a report covers: `from <= createdAt < to`, either end open when absent. */
export interface ReportRange {
  from: string | null;
  to: string | null;
}

/** A report job as the domain knows it; `result` is present once it is done. */
export interface ReportJob {
  id: number;
  type: ReportType;
  params: ReportRange;
  status: ReportStatus;
  result: unknown;
  error: string | null;
  requestedBy: number | null;
  createdAt: string;
  updatedAt: string;
  finishedAt: string | null;
}

export function toReportJob(row: ReportJobRow): ReportJob {
  return {
    id: row.id,
    type: row.type,
    params: JSON.parse(row.params) as ReportRange,
    status: row.status,
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    requestedBy: row.requested_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    finishedAt: row.finished_at,
  };
}
