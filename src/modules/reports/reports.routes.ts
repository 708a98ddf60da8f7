import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { Id } from '../../core/http/schemas.ts';
import { toReportJobView } from './reports.presenter.ts';
import { GenerateReportInput, ReportJobView } from './reports.schemas.ts';
import type { ReportsService } from './reports.service.ts';

const tags = ['reports'];

/** REST adapter for reports: queue one (202 + Location), then poll it until it is done. */
export const reportsRoutes: FastifyPluginAsyncTypebox<{ reports: ReportsService }> = async (app, { reports }) => {
  app.post(
    '/reports/generate',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Queue a report (admin); poll the Location',
        body: GenerateReportInput,
        response: { 202: ReportJobView },
      },
    },
    async (request, reply) => {
      const view = toReportJobView(await reports.requestReport(request.principal, request.body), request.apiPrefix);
      return reply.code(202).header('location', view._links.self.href).send(view);
    },
  );

  app.get(
    '/reports/:reportId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'A report job: its status and, when done, the result (admin)',
        params: Type.Object({ reportId: Id }),
        response: { 200: ReportJobView },
      },
    },
    async (request) =>
      toReportJobView(await reports.getReport(request.principal, request.params.reportId), request.apiPrefix),
  );
};
