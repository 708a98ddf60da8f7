import { EVENT_LINK_PREFIX } from '../events/event-recorder.ts';
import type { EventsService } from '../events/events.service.ts';
import type { EventPayloadsOf } from '../events/event-payloads.ts';
import { defineModule, restRoutes, type ModuleDeps } from '../module.ts';
import { toReportJobView } from './reports.presenter.ts';
import { createReportWorker } from './report-worker.ts';
import { reportsRoutes } from './reports.routes.ts';
import { ReportJobView } from './reports.schemas.ts';
import { createReportsService, type ReportEvents, type ReportsService } from './reports.service.ts';

/** Reports: REST `/reports`, jobs queued in `report_jobs` and run by the report worker. */
export const reportsModule = defineModule({
  name: 'reports',
  createService: ({ db, config, services }: ModuleDeps<{ events: EventsService }>) =>
    createReportsService(
      db,
      { currency: config.STORE_CURRENCY, leaseMs: config.REPORT_LEASE_MS },
      services.events.recorderFor<ReportEvents>({
        'report.completed': (job) => toReportJobView(job, EVENT_LINK_PREFIX),
      }),
    ),
  routes: restRoutes(reportsRoutes, ({ reports }) => ({ reports })),
  eventPayloads: { 'report.completed': ReportJobView } satisfies EventPayloadsOf<ReportEvents>,
  workers: ({ reports }: { reports: ReportsService }, { config, log }) =>
    config.REPORT_WORKER ? [createReportWorker(reports, { pollMs: config.REPORT_POLL_MS, log })] : [],
  // Read on each scrape (one query on the status index); the same on every instance, which share the queue.
  metrics: ({ reports }: { reports: ReportsService }) => [
    {
      gauges: {
        report_jobs_queued: 'Report jobs waiting for a worker',
        report_jobs_oldest_queued_age_seconds: 'How long the oldest queued report job has waited (0 when none)',
      },
      async read() {
        const stats = await reports.queueStats();
        return { report_jobs_queued: stats.queued, report_jobs_oldest_queued_age_seconds: stats.oldestAgeSeconds };
      },
    },
  ],
});
