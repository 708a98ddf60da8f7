import type { ReportJob } from './report.ts';

export function toReportJobView(job: ReportJob, prefix: string) {
  return {
    id: job.id,
    type: job.type,
    params: job.params,
    status: job.status,
    result: job.status === 'done' ? job.result : null,
    error: job.error,
    createdAt: job.createdAt,
    updatedAt: job.updatedAt,
    finishedAt: job.finishedAt,
    _links: { self: { href: `${prefix}/reports/${job.id}` } },
  };
}
