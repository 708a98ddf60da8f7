import type { Principal } from '../../core/access/principal.ts';
import { runOperation, type BatchTarget } from '../../core/bulk/batch.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { inOuterTransaction } from '../../core/db/outer-transaction.ts';
import { inTransaction } from '../../core/db/transaction.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { asImportRow } from '../events/import-origin.ts';
import { runWithOrigin } from '../../core/http/write-origin.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createImportPacer } from './import-pacing.ts';
import * as repo from './imports.repository.ts';
import type { ImportRow } from './imports.table.ts';

export const IMPORT_RESOURCES = ['products', 'users', 'posts'] as const;
export type ImportResource = (typeof IMPORT_RESOURCES)[number];
export interface ImportsSettings {
  maxBytes: number;
  /** How long an upload may take to arrive (IMPORT_UPLOAD_TIMEOUT_MS), beyond the other requests' REQUEST_TIMEOUT_MS. */
  uploadTimeoutMs: number;
  leaseMs: number;
  /** Rows per chunk (IMPORT_CHUNK_ROWS): each chunk is written all or nothing, its position committed with it (§18). */
  chunkRows: number;
  /** Attempts at a chunk whose writing throws before the job fails (IMPORT_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** The first wait before such a chunk is tried again, doubled after each failure (IMPORT_POLL_MS). */
  retryMs: number;
  /** IMPORT_YIELD: a worker waits after a chunk slowed by other work (import-pacing.ts). */
  yieldToApi: boolean;
}

/** Stored lines of finished jobs removed per idle step of a worker. */
const CLEARED_PER_STEP = 5000;

/** Rolls a dry run's chunk back once its outcome is known. */
class DryRun extends Error {
  readonly outcome: ChunkOutcome;
  constructor(outcome: ChunkOutcome) {
    super('dry run');
    this.outcome = outcome;
  }
}

interface ChunkOutcome {
  created: number;
  updated: number;
  errors: { import_id: number; line: number; field: string | null; message: string }[];
  last: number;
}

/**
 * The workers' side of imports (DECISIONS §18): a step claims a job (the one this worker holds first)
 * and writes its next chunk, each row through its resource's batch target (the single request's own
 * service call) in a savepoint of its own, or a create chunk as one list create (the single create's own call,
 * products), the chunk's position and counts in the same transaction.
 */
export function createChunkRunner(
  db: Db,
  targets: Readonly<Record<ImportResource, BatchTarget<unknown>>>,
  settings: ImportsSettings,
) {
  const pacer = createImportPacer(settings.yieldToApi);

  /** One chunk of a claimed job, in one transaction with its position; each row failing alone. */
  async function runChunk(job: ImportRow, workerId: string, writing: { line?: number }): Promise<boolean> {
    const target = targets[job.resource as ImportResource];
    const actor: Principal = { userId: job.owner_id, role: job.owner_role as Principal['role'] };
    const op = job.mode === 'upsert' ? 'upsert' : 'create';
    const chunk = async (): Promise<ChunkOutcome | undefined> => {
      const current = await repo.lockImport(db, job.id);
      if (!current || current.status !== 'running' || current.locked_by !== workerId) return undefined;
      const rows = await repo.readRowsAfter(db, job.id, current.position, settings.chunkRows);
      const outcome: ChunkOutcome = { created: 0, updated: 0, errors: [], last: current.position };
      const origin = { requestId: `import:${job.id}`, principal: () => actor };
      const failed = (line: number, error: AppError) => {
        const detail = error.details?.[0];
        outcome.errors.push({
          import_id: job.id,
          line,
          field: detail?.field || null,
          message: detail ? detail.message : error.message,
        });
      };
      // A create's chunk is the list create of its rows: each row checked and written or refused alone, in
      // statements for the whole chunk, their events carrying the import's id, their revisions the import's
      // owner. A chunk whose writing threw is tried again row by row, so its report names the row that threw.
      const listed = op === 'create' && target.createMany !== undefined && current.attempts === 0;
      if (listed) {
        outcome.last = rows.at(-1)?.line ?? current.position;
        writing.line = rows[0]?.line;
        const bodies = rows.map((row) => target.createBody(actor, JSON.parse(row.data)));
        const answers = await runWithOrigin(origin, () => asImportRow(job.id, () => target.createMany!(actor, bodies)));
        answers.forEach((answer, i) => {
          if (answer instanceof AppError) failed(rows[i]!.line, answer);
          else outcome.created += 1;
        });
      }
      for (const row of listed ? [] : rows) {
        outcome.last = row.line;
        writing.line = row.line;
        const data = JSON.parse(row.data) as Record<string, unknown>;
        const key = target.naturalKey?.field;
        if (op === 'upsert' && key && typeof data[key] !== 'string') {
          outcome.errors.push({ import_id: job.id, line: row.line, field: key, message: 'is required for an upsert' });
          continue;
        }
        try {
          // The single request's own write; its events carry the import's id (events/import-origin.ts).
          // Its revision's actor is the import's owner, its request id `import:<id>` (write-origin.ts).
          const result = await runWithOrigin(origin, () =>
            asImportRow(job.id, () =>
              inTransaction(db, () => runOperation(actor, target, { op, data }, 0, () => () => undefined)),
            ),
          );
          if (result.status === 201) outcome.created += 1;
          else outcome.updated += 1;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          failed(row.line, error);
        }
      }
      if (job.dry_run) throw new DryRun(outcome);
      await record(outcome, rows.length < settings.chunkRows);
      return outcome;
    };
    const record = async (outcome: ChunkOutcome, finished: boolean) => {
      await repo.insertImportErrors(db, outcome.errors);
      const current = (await repo.findImportById(db, job.id))!;
      await repo.updateImport(db, job.id, {
        position: outcome.last,
        rows_created: current.rows_created + outcome.created,
        rows_updated: current.rows_updated + outcome.updated,
        rows_failed: current.rows_failed + outcome.errors.length,
        attempts: 0,
        locked_until: new Date(Date.now() + settings.leaseMs).toISOString(),
        ...(finished ? { status: 'done' as const, finished_at: now(), locked_by: null, locked_until: null } : {}),
      });
    };
    let outcome: ChunkOutcome | undefined;
    try {
      outcome = await inOuterTransaction(db, chunk);
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
      // A dry run writes no row: only what a real run would have reported.
      const { outcome: seen } = error;
      const more = (await repo.readRowsAfter(db, job.id, seen.last, 1)).length > 0;
      await inOuterTransaction(db, () => record(seen, !more));
      return more;
    }
    if (!outcome) return false;
    return (await repo.findImportById(db, job.id))?.status === 'running';
  }

  /**
   * A chunk whose writing threw (a bug, a row the database refuses in a way no check foresaw, the database
   * gone): nothing of it stayed. It is tried again after a wait that doubles each time, by any worker;
   * after `maxAttempts` the job fails, the line it stopped at in its error report. A row's validation
   * error never gets here: it is reported with its line and the rest of the chunk goes in.
   */
  async function chunkFailed(job: ImportRow, workerId: string, line: number | undefined): Promise<void> {
    const current = await repo.findImportById(db, job.id);
    if (!current || current.status !== 'running' || current.locked_by !== workerId) return;
    const attempts = current.attempts + 1;
    if (attempts < settings.maxAttempts) {
      const wait = settings.retryMs * 2 ** (attempts - 1);
      await repo.updateImport(db, job.id, {
        attempts,
        locked_by: null,
        locked_until: new Date(Date.now() + wait).toISOString(),
      });
      return;
    }
    await inOuterTransaction(db, async () => {
      await repo.insertImportErrors(db, [
        {
          import_id: job.id,
          line: line ?? current.position + 1,
          field: null,
          message: `could not be written: ${attempts} attempts failed with an internal error; the import stopped here`,
        },
      ]);
      await repo.updateImport(db, job.id, {
        status: 'failed',
        attempts,
        rows_failed: current.rows_failed + 1,
        finished_at: now(),
        locked_by: null,
        locked_until: null,
      });
    });
  }

  /** A worker's step: claims a job (or keeps its own) and runs one chunk; true when there may be more. */
  return async function runNextChunk(workerId: string): Promise<boolean> {
    const at = now();
    const job = await repo.claimImport(db, workerId, at, new Date(Date.now() + settings.leaseMs).toISOString());
    // With no job to run, the stored uploads of finished ones are cleared, a range of lines per step.
    if (!job) return (await repo.clearFinishedUpload(db, CLEARED_PER_STEP)) === CLEARED_PER_STEP;
    if (!job.started_at) await repo.updateImport(db, job.id, { started_at: at });
    const writing: { line?: number } = {};
    const started = performance.now();
    try {
      const more = await runChunk(job, workerId, writing);
      const wait = more ? pacer.after(job.id, performance.now() - started) : 0;
      if (wait > 0) await sleep(wait);
    } catch (error) {
      await chunkFailed(job, workerId, writing.line);
      // The worker logs it and waits for its next poll.
      throw error;
    }
    return true;
  };
}
