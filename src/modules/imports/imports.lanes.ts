import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../core/db/database.ts';
import { inOuterTransaction, isRetryableTransactionError } from '../../core/db/outer-transaction.ts';
import type { LanePacer } from './import-pacing.ts';
import { takeWriterKeyFirst, type ChunkOutcome, type StoredRow, type chunkWriter } from './imports.chunk-write.ts';
import * as repo from './imports.repository.ts';
import type { ImportRow } from './imports.table.ts';

/** The longest a worker's step with lanes runs before it drains them, folds the done chunks and renews its lease. */
const STEP_MS = 2000;
/**
 * Rounds of `inOuterTransaction`'s own retries a lane gives a chunk aborted by a deadlock or a
 * serialization failure before leaving it to the next step (still a list, still no failed attempt).
 */
const ROUNDS = 3;

export interface LanesSettings {
  chunkRows: number;
  leaseMs: number;
}

/** What a step with lanes came to: the chunk that threw (not a deadlock), if one did; the transactions it ran. */
export interface LanesOutcome {
  failure?: { line: number; error: unknown };
  transactions: number;
}

/**
 * One step of a job written in lanes (IMPORT_LANES, PostgreSQL; DECISIONS §18): up to `lanes` list chunks
 * at once, each in its own transaction on its own connection, none updating the job's row. A lane's
 * transaction shares the job's row lock (repo.shareImport) and checks the job still runs under this
 * worker's lease: lanes do not wait for one another, but a cancel's UPDATE waits for the chunks in flight,
 * and a chunk starting after it finds the job cancelled, so none commits once a cancel has answered. Each
 * chunk commits its rows, its error lines and its row in `import_chunks` together; the caller folds them
 * into the job's row after the step. The chunks are cut from the job's position on, the lines of done
 * chunks not folded yet (a dead worker's, a failed step's) skipped: every stored row is written once.
 * The step stops starting chunks after STEP_MS (at most half the lease), so the worker's stop waits for
 * little, and its lease is renewed by its next step's claim.
 */
export async function runLanes(
  db: Db,
  job: ImportRow,
  workerId: string,
  writer: ReturnType<typeof chunkWriter>,
  settings: LanesSettings,
  pacer: LanePacer,
  lanes: number,
): Promise<LanesOutcome> {
  const until = performance.now() + Math.min(STEP_MS, settings.leaseMs / 2);
  const done = await repo.doneChunks(db, job.id);
  const result: LanesOutcome = { transactions: 0 };
  let cursor = job.position;
  let stopped = false;

  /** The next chunk's rows after the cursor, the lines of done chunks skipped. */
  async function cut(): Promise<StoredRow[] | undefined> {
    for (;;) {
      const ahead = done.find((chunk) => chunk.last_line > cursor);
      const rows = await repo.readRowsAfter(db, job.id, cursor, settings.chunkRows, ahead?.first_line);
      if (rows.length > 0) {
        cursor = rows.at(-1)!.line;
        return rows;
      }
      if (!ahead) return undefined;
      cursor = ahead.last_line;
    }
  }
  // The lanes take their chunks one after the other.
  let cutting: Promise<unknown> = Promise.resolve();
  const take = () => {
    const next = cutting.then(cut);
    cutting = next.catch(() => undefined);
    return next;
  };

  /** One chunk in its own transaction; false when the job is no longer this worker's to write. */
  const write = (rows: StoredRow[]) =>
    inOuterTransaction(db, async () => {
      await takeWriterKeyFirst(db);
      const current = await repo.shareImport(db, job.id);
      if (!current || current.status !== 'running' || current.locked_by !== workerId) return false;
      const outcome: ChunkOutcome = { created: 0, updated: 0, errors: [], last: rows[0]!.line };
      await writer.writeList(rows, outcome);
      await repo.insertImportErrors(db, outcome.errors);
      await repo.insertImportChunk(db, {
        import_id: job.id,
        first_line: rows[0]!.line,
        last_line: outcome.last,
        created: outcome.created,
        updated: outcome.updated,
        failed: outcome.errors.length,
      });
      return true;
    });

  async function lane(index: number): Promise<void> {
    while (!stopped && performance.now() < until) {
      let rows: StoredRow[] | undefined;
      try {
        rows = await take();
      } catch (error) {
        stopped = true;
        result.failure ??= { line: cursor + 1, error };
        return;
      }
      if (!rows || stopped) return;
      const ended = pacer.begin(index, job.id);
      let written: boolean | undefined;
      for (let round = 1; written === undefined; round += 1) {
        try {
          result.transactions += 1;
          written = await write(rows);
        } catch (error) {
          // A deadlock between lanes (or a serialization failure) undid the whole chunk: it is tried again
          // as the same list, neither a failed attempt nor a reason to go row by row.
          if (isRetryableTransactionError(error) && round < ROUNDS) continue;
          ended();
          stopped = true;
          if (!isRetryableTransactionError(error)) result.failure ??= { line: rows[0]!.line, error };
          return;
        }
      }
      const wait = ended();
      if (!written) {
        stopped = true;
        return;
      }
      if (wait > 0) await sleep(wait);
    }
  }
  await Promise.all(Array.from({ length: lanes }, (_, index) => lane(index)));
  return result;
}
