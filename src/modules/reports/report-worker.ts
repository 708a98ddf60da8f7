import { createPollingWorker, type PollingWorker, type WorkerLog } from '../../core/jobs/polling-worker.ts';
import type { ReportsService } from './reports.service.ts';

export type ReportWorker = PollingWorker;

/**
 * Runs report jobs in the server process: every `pollMs` it claims jobs until none is left.
 * Several instances may poll one database; the claim in the repository gives each job to one.
 */
export function createReportWorker(reports: ReportsService, options: { pollMs: number; log: WorkerLog }): ReportWorker {
  return createPollingWorker({
    name: 'report worker',
    intervalMs: options.pollMs,
    log: options.log,
    step: (workerId) => reports.runNextJob(workerId),
  });
}
