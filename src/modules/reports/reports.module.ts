import { defineModule, restRoutes } from '../module.ts';
import { createReportWorker } from './report-worker.ts';
import { reportsRoutes } from './reports.routes.ts';
import { createReportsService, type ReportsService } from './reports.service.ts';

/** Reports: REST `/reports`, jobs queued in `report_jobs` and run by the report worker. */
export const reportsModule = defineModule({
  name: 'reports',
  createService: ({ db, config }) => createReportsService(db, { currency: config.STORE_CURRENCY, leaseMs: config.REPORT_LEASE_MS }),
  routes: restRoutes(reportsRoutes, ({ reports }) => ({ reports })),
  workers: ({ reports }: { reports: ReportsService }, { config, log }) =>
    config.REPORT_WORKER ? [createReportWorker(reports, { pollMs: config.REPORT_POLL_MS, log })] : [],
});
