import type { BatchTarget } from '../../core/bulk/batch.ts';
import { now } from '../../core/clock.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { inOuterTransaction, isRetryableTransactionError } from '../../core/db/outer-transaction.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLoadGauge, type LoadGauge } from './database-load.ts';
import { createLanePacer } from './import-pacing.ts';
import { chunkWriter, takeWriterKeyFirst, type ChunkOutcome } from './imports.chunk-write.ts';
import { runLanes } from './imports.lanes.ts';
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
  /**
   * IMPORT_LANES: list chunks of one job written at once on PostgreSQL (imports.lanes.ts), with `yieldToApi`
   * only while the database serves little else (database-load.ts); SQLite writes one.
   */
  lanes: number;
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

/**
 * The workers' side of imports (DECISIONS §18): a step claims a job (the one this worker holds first)
 * and writes its next chunk, each row through its resource's batch target (the single request's own
 * service call) in a savepoint of its own, or a create chunk as one list create (the single create's own call,
 * products), the chunk's position and counts in the same transaction. On PostgreSQL a job's list chunks
 * go in lanes (IMPORT_LANES, imports.lanes.ts), several at once.
 */
export function createChunkRunner(
  db: Db,
  targets: Readonly<Record<ImportResource, BatchTarget<unknown>>>,
  settings: ImportsSettings,
  /** Whether the database serves other work (database-load.ts); by default read from its statistics. */
  gauge?: LoadGauge,
) {
  // SQLite has one writer: lanes would only queue on it.
  const lanes = dialectOf(db) === 'postgres' ? Math.max(1, settings.lanes) : 1;
  const pacer = createLanePacer(lanes, settings.yieldToApi);
  const serialPacer = createLanePacer(1, settings.yieldToApi);
  // Giving way to the API: one lane while the database serves other work.
  const load =
    lanes > 1 && settings.yieldToApi ? (gauge ?? createLoadGauge(() => repo.countTransactions(db))) : undefined;

  /** One chunk of a claimed job, in one transaction with its position; each row failing alone. */
  async function runChunk(job: ImportRow, workerId: string, writing: { line?: number }): Promise<boolean> {
    const writer = chunkWriter(db, job, targets[job.resource as ImportResource]);
    const chunk = async (): Promise<ImportRow | undefined> => {
      await takeWriterKeyFirst(db);
      const current = await repo.lockImport(db, job.id);
      if (!current || current.status !== 'running' || current.locked_by !== workerId) return undefined;
      // Lines a lane wrote (a done chunk after the position) are not read again.
      const next = (await repo.doneChunks(db, job.id))[0]?.first_line;
      const rows = await repo.readRowsAfter(db, job.id, current.position, settings.chunkRows, next);
      const outcome: ChunkOutcome = { created: 0, updated: 0, errors: [], last: current.position };
      // A create's chunk is the list create of its rows, its events carrying the import's id, its revisions
      // the import's owner. A chunk whose writing threw is tried again row by row, so its report names the
      // row that threw.
      if (writer.listed && current.attempts === 0) {
        writing.line = rows[0]?.line;
        await writer.writeList(rows, outcome);
      } else await writer.writeRows(rows, outcome, writing);
      if (job.dry_run) throw new DryRun(outcome);
      return record(current, outcome);
    };
    /** The chunk's error lines, position and counts, the lanes' done chunks after it folded in. */
    const record = async (current: ImportRow, outcome: ChunkOutcome) => {
      await repo.insertImportErrors(db, outcome.errors);
      return repo.foldChunks(db, current, {
        position: outcome.last,
        rows_created: current.rows_created + outcome.created,
        rows_updated: current.rows_updated + outcome.updated,
        rows_failed: current.rows_failed + outcome.errors.length,
        attempts: 0,
        locked_until: new Date(Date.now() + settings.leaseMs).toISOString(),
      });
    };
    let written: ImportRow | undefined;
    try {
      written = await inOuterTransaction(db, chunk);
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
      // A dry run writes no row: only what a real run would have reported.
      const { outcome: seen } = error;
      written = await inOuterTransaction(db, async () => record((await repo.lockImport(db, job.id))!, seen));
    }
    if (written?.status === 'done') await statisticsAfter(written);
    return written?.status === 'running';
  }

  /** A finished job's table analyzed when it wrote enough of it (PostgreSQL; repo.refreshStatistics). */
  const statisticsAfter = async (job: ImportRow) => {
    if (!job.dry_run)
      await repo.refreshStatistics(db, job.resource as ImportResource, job.rows_created + job.rows_updated);
  };

  /** The done chunks of the lanes folded into the job's row, in a small transaction of its own. */
  const fold = (job: ImportRow) =>
    inOuterTransaction(db, async () => {
      const current = await repo.lockImport(db, job.id);
      return current && repo.foldChunks(db, current);
    });

  /**
   * A chunk whose writing threw (a bug, a row the database refuses in a way no check foresaw, the database
   * gone): nothing of it stayed. It is tried again after a wait that doubles each time, by any worker;
   * after `maxAttempts` the job fails, the line it stopped at in its error report. A row's validation
   * error never gets here: it is reported with its line and the rest of the chunk goes in. Nor does a
   * deadlock or a serialization failure that outlasted the transaction's own retries: the chunk is tried
   * again as it was, at the next poll, with no attempt counted.
   */
  async function chunkFailed(job: ImportRow, workerId: string, line: number | undefined, error: unknown) {
    if (isRetryableTransactionError(error)) return;
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

  /** Lanes write a real create's list chunks while no attempt at one has failed (then a chunk goes row by row). */
  const inLanes = (job: ImportRow) =>
    lanes > 1 &&
    !job.dry_run &&
    job.attempts === 0 &&
    chunkWriter(db, job, targets[job.resource as ImportResource]).listed;

  /** A worker's step: claims a job (or keeps its own) and runs one chunk, or a step of lanes; true when there may be more. */
  return async function runNextChunk(workerId: string): Promise<boolean> {
    const at = now();
    const job = await repo.claimImport(db, workerId, at, new Date(Date.now() + settings.leaseMs).toISOString());
    // With no job to run, the stored uploads of finished ones are cleared, a range of lines per step.
    if (!job) return (await repo.clearFinishedUpload(db, CLEARED_PER_STEP)) === CLEARED_PER_STEP;
    if (!job.started_at) await repo.updateImport(db, job.id, { started_at: at });
    if (inLanes(job) && !(await load?.busy())) {
      const writer = chunkWriter(db, job, targets[job.resource as ImportResource]);
      const { failure, transactions } = await runLanes(db, job, workerId, writer, settings, pacer, lanes);
      // The step's claim, its chunks and its fold: the import's own transactions.
      load?.own(transactions + 2);
      const folded = await fold(job);
      if (folded?.status === 'done') await statisticsAfter(folded);
      if (failure) {
        await chunkFailed(job, workerId, failure.line, failure.error);
        throw failure.error;
      }
      return true;
    }
    const writing: { line?: number } = {};
    load?.own(2); // the claim and the chunk
    const ended = serialPacer.begin(0, job.id);
    try {
      const more = await runChunk(job, workerId, writing);
      const wait = ended();
      if (more && wait > 0) await sleep(wait);
    } catch (error) {
      ended();
      await chunkFailed(job, workerId, writing.line, error);
      // The worker logs it and waits for its next poll.
      throw error;
    }
    return true;
  };
}
