import type { Principal } from '../../core/access/principal.ts';
import { runOperation, type BatchTarget } from '../../core/bulk/batch.ts';
import { dialectOf, type Db } from '../../core/db/database.ts';
import { inTransaction } from '../../core/db/transaction.ts';
import { AppError } from '../../core/errors/app-error.ts';
import { runWithOrigin } from '../../core/http/write-origin.ts';
import { takeWriterKey } from '../events/feed-horizon.ts';
import { asImportRow } from '../events/import-origin.ts';
import type { ImportRow } from './imports.table.ts';

/** What a chunk wrote: its counts, its error lines, and the last line it covered. */
export interface ChunkOutcome {
  created: number;
  updated: number;
  errors: { import_id: number; line: number; field: string | null; message: string }[];
  last: number;
}

export interface StoredRow {
  line: number;
  data: string;
}

/**
 * PostgreSQL: a chunk's transaction takes the events' writer key (events/feed-horizon.ts) before its first
 * statement. Locking the job's row gives the transaction its id, and the feed's horizon passes over a
 * transaction with an id but without the key: the chunk's events, recorded later under that id, would
 * fall behind a horizon the consumers may already have read past.
 */
export async function takeWriterKeyFirst(db: Db): Promise<void> {
  if (dialectOf(db) === 'postgres') await takeWriterKey(db);
}

/** How a job's rows are written: as its owner, with its request id, each write's events carrying its id. */
export function chunkWriter(db: Db, job: ImportRow, target: BatchTarget<unknown>) {
  const actor: Principal = { userId: job.owner_id, role: job.owner_role as Principal['role'] };
  const op = job.mode === 'upsert' ? 'upsert' : 'create';
  // Its revision's actor is the import's owner, its request id `import:<id>` (write-origin.ts); its events
  // carry the import's id (events/import-origin.ts).
  const origin = { requestId: `import:${job.id}`, principal: () => actor };
  const failed = (outcome: ChunkOutcome, line: number, error: AppError) => {
    const detail = error.details?.[0];
    outcome.errors.push({
      import_id: job.id,
      line,
      field: detail?.field || null,
      message: detail ? detail.message : error.message,
    });
  };
  return {
    /** A create chunk of a resource whose service creates lists (products) is written as one list create. */
    listed: op === 'create' && target.createMany !== undefined,

    /**
     * The list create of the chunk's rows: each row checked and written or refused alone, in statements
     * for the whole chunk.
     */
    async writeList(rows: readonly StoredRow[], outcome: ChunkOutcome): Promise<void> {
      outcome.last = rows.at(-1)?.line ?? outcome.last;
      const bodies = rows.map((row) => target.createBody(actor, JSON.parse(row.data)));
      const answers = await runWithOrigin(origin, () => asImportRow(job.id, () => target.createMany!(actor, bodies)));
      answers.forEach((answer, i) => {
        if (answer instanceof AppError) failed(outcome, rows[i]!.line, answer);
        else outcome.created += 1;
      });
    },

    /** Each row through the single request's own write, in a savepoint of its own: a bad row fails alone. */
    async writeRows(rows: readonly StoredRow[], outcome: ChunkOutcome, writing: { line?: number }): Promise<void> {
      for (const row of rows) {
        outcome.last = row.line;
        writing.line = row.line;
        const data = JSON.parse(row.data) as Record<string, unknown>;
        const key = target.naturalKey?.field;
        if (op === 'upsert' && key && typeof data[key] !== 'string') {
          outcome.errors.push({ import_id: job.id, line: row.line, field: key, message: 'is required for an upsert' });
          continue;
        }
        try {
          const result = await runWithOrigin(origin, () =>
            asImportRow(job.id, () =>
              inTransaction(db, () => runOperation(actor, target, { op, data }, 0, () => () => undefined)),
            ),
          );
          if (result.status === 201) outcome.created += 1;
          else outcome.updated += 1;
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          failed(outcome, row.line, error);
        }
      }
    },
  };
}
