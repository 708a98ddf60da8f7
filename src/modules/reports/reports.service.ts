import { requireAdmin } from '../../core/access/guards.ts';
import type { Principal } from '../../core/access/principal.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { createChecker } from '../../core/validation/ajv.ts';
import { toReportJob, type ReportJob, type ReportRange } from './report.ts';
import { buildReport } from './report-builders.service.ts';
import * as repo from './reports.repository.ts';
import { GenerateReportInput } from './reports.schemas.ts';
import { noEvents, type EventRecorder } from '../events/event-recorder.ts';

const checkGenerate = createChecker<GenerateReportInput>(GenerateReportInput);
const DAY_MS = 24 * 60 * 60 * 1000;

/** `from` is inclusive and `to` exclusive; a bare date as `to` means "up to the end of that day". */
function rangeOf(input: GenerateReportInput): ReportRange {
  const parse = (field: 'from' | 'to'): string | null => {
    const text = input[field];
    if (text === undefined) return null;
    const bareDate = text.length === 10;
    const time = Date.parse(bareDate ? `${text}T00:00:00Z` : text);
    // The pattern admits 2026-02-31 and the parser rolls it over to March; the calendar does not.
    const day = text.slice(0, 10);
    const realDay = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(time) || Number.isNaN(realDay) || new Date(realDay).toISOString().slice(0, 10) !== day)
      throw AppError.validation([{ field, message: 'is not a valid date' }]);
    return new Date(field === 'to' && bareDate ? time + DAY_MS : time).toISOString();
  };
  const range = { from: parse('from'), to: parse('to') };
  if (range.from && range.to && range.from >= range.to) {
    throw AppError.validation([{ field: 'to', message: 'must be after from' }]);
  }
  return range;
}

export interface ReportsOptions {
  currency: string;
  /** How long a claimed job is held before another instance may take it over. */
  leaseMs: number;
}

export type ReportEvents = { 'report.completed': ReportJob };

export function createReportsService(
  db: Db,
  options: ReportsOptions,
  events: EventRecorder<ReportEvents> = noEvents(),
) {
  /** Records the outcome (done or failed) with its `report.completed`, if the job is still this worker's. */
  const finish = (id: number, workerId: string, outcome: Parameters<typeof repo.finishJob>[3]) =>
    events.recordWith(
      db,
      'report.completed',
      async (trx) => ((await repo.finishJob(trx, id, workerId, outcome)) ? repo.findJobById(trx, id) : undefined),
      toReportJob,
    );

  return {
    /** Queues a report; a worker picks it up. Admin only. */
    async requestReport(actor: Principal | null, raw: unknown): Promise<ReportJob> {
      const admin = requireAdmin(actor);
      const input = checkGenerate(raw);
      const row = await repo.insertJob(db, {
        type: input.type,
        params: JSON.stringify(rangeOf(input)),
        requestedBy: admin.userId,
        at: now(),
      });
      return toReportJob(row);
    },

    async getReport(actor: Principal | null, id: number): Promise<ReportJob> {
      requireAdmin(actor);
      const row = await repo.findJobById(db, id);
      if (!row) throw AppError.notFound(`Report ${id}`);
      return toReportJob(row);
    },

    /**
     * Claims one job (queued, or running with an expired lease) and runs it to the end.
     * Returns false when there was nothing to do. A report that throws is recorded as failed.
     */
    async runNextJob(workerId: string): Promise<boolean> {
      const at = new Date();
      const row = await repo.claimNextJob(
        db,
        workerId,
        at.toISOString(),
        new Date(at.getTime() + options.leaseMs).toISOString(),
      );
      if (!row) return false;
      const job = toReportJob(row);
      try {
        const result = await buildReport(db, job.type, job.params, options.currency);
        await finish(job.id, workerId, { status: 'done', result: JSON.stringify(result), error: null, at: now() });
      } catch (error) {
        // The stored error is shown to admins: our own errors are safe to show, anything else is masked.
        const message = error instanceof AppError ? error.message : 'Report generation failed';
        await finish(job.id, workerId, { status: 'failed', result: null, error: message, at: now() });
      }
      return true;
    },

    /** Jobs waiting for a worker and how long the oldest has waited (seconds; 0 when none), for `/metrics`. */
    async queueStats(): Promise<{ queued: number; oldestAgeSeconds: number }> {
      const stats = await repo.queuedJobStats(db);
      const oldest = stats.oldestCreatedAt === null ? NaN : Date.parse(stats.oldestCreatedAt);
      return {
        queued: stats.queued,
        oldestAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (Date.now() - oldest) / 1000),
      };
    },
  };
}

export type ReportsService = ReturnType<typeof createReportsService>;
