import type { Readable } from 'node:stream';
import { requireSignedIn } from '../../core/access/guards.ts';
import { isAdmin, type Principal } from '../../core/access/principal.ts';
import type { BatchTarget } from '../../core/bulk/batch.ts';
import { now } from '../../core/clock.ts';
import type { Db } from '../../core/db/database.ts';
import { isUniqueViolation } from '../../core/db/db-errors.ts';
import { inOuterTransaction } from '../../core/db/outer-transaction.ts';
import { AppError } from '../../core/errors/app-error.ts';
import * as repo from './imports.repository.ts';
import type { ImportRow } from './imports.table.ts';
import { readUpload, type UploadFormat } from './imports.upload.ts';
import { createChunkRunner, IMPORT_RESOURCES, type ImportResource, type ImportsSettings } from './imports.chunks.ts';

export { IMPORT_RESOURCES, type ImportResource, type ImportsSettings };

const STORE_BATCH = 500;
const FINISHED = new Set(['done', 'failed', 'cancelled']);

export interface NewImport {
  resource: ImportResource;
  mode: 'create' | 'upsert';
  dryRun: boolean;
  format: UploadFormat;
  body: Readable;
  idempotencyKey?: string | undefined;
}

export function createImportsService(
  db: Db,
  targets: Readonly<Record<ImportResource, BatchTarget<unknown>>>,
  settings: ImportsSettings,
) {
  const notFound = (id: number) => AppError.notFound(`Import ${id}`);

  /** The owner or an admin sees a job; anyone else is told it does not exist. */
  async function visibleJob(
    actor: Principal | null,
    id: number,
    read: (db: Db, id: number) => Promise<ImportRow | undefined> = repo.findImportById,
  ): Promise<ImportRow> {
    const principal = requireSignedIn(actor);
    const job = await read(db, id);
    if (!job || (!isAdmin(principal) && job.owner_id !== principal.userId)) throw notFound(id);
    return job;
  }

  /** Streams the upload into stored rows; on any refusal nothing stays stored. */
  async function store(job: ImportRow, upload: NewImport, fields: Readonly<Record<string, string>>) {
    let read = 0;
    let failed = 0;
    let rows: { import_id: number; line: number; data: string }[] = [];
    let errors: { import_id: number; line: number; field: string | null; message: string }[] = [];
    const flush = async () => {
      await repo.insertImportRows(db, rows);
      await repo.insertImportErrors(db, errors);
      rows = [];
      errors = [];
    };
    for await (const row of readUpload(upload.body, upload.format, fields, settings.maxBytes)) {
      read += 1;
      if (row.error) {
        failed += 1;
        errors.push({ import_id: job.id, line: row.line, field: row.error.field, message: row.error.message });
      } else rows.push({ import_id: job.id, line: row.line, data: JSON.stringify(row.data) });
      if (rows.length + errors.length >= STORE_BATCH) await flush();
    }
    await flush();
    return { read, failed };
  }

  return {
    settings,

    /**
     * Stores the upload as a job (202): admins import anything, a user posts as themselves. A retried
     * upload with the same `Idempotency-Key` is the job the first made.
     */
    async createImport(actor: Principal | null, upload: NewImport): Promise<ImportRow> {
      const principal = requireSignedIn(actor);
      if (!IMPORT_RESOURCES.includes(upload.resource))
        throw AppError.validation([{ field: 'resource', message: `must be one of ${IMPORT_RESOURCES.join(', ')}` }]);
      if (upload.resource !== 'posts' && !isAdmin(principal))
        throw AppError.forbidden(`Imports of ${upload.resource} are for admins`);
      const target = targets[upload.resource];
      if (upload.mode === 'upsert' && !target.naturalKey)
        throw AppError.validation([{ field: 'mode', message: `${upload.resource} have no natural key to upsert on` }]);
      if (upload.idempotencyKey) {
        const existing = await repo.findImportByKey(db, principal.userId, upload.idempotencyKey);
        if (existing) return existing;
      }
      let job: ImportRow;
      try {
        job = await repo.insertImport(db, {
          resource: upload.resource,
          mode: upload.mode,
          dry_run: upload.dryRun ? 1 : 0,
          status: 'uploading',
          owner_id: principal.userId,
          owner_role: principal.role,
          idempotency_key: upload.idempotencyKey ?? null,
          position: 0,
          rows_read: 0,
          rows_created: 0,
          rows_updated: 0,
          rows_failed: 0,
          created_at: now(),
        });
      } catch (error) {
        if (isUniqueViolation(error) && upload.idempotencyKey)
          return (await repo.findImportByKey(db, principal.userId, upload.idempotencyKey))!;
        throw error;
      }
      try {
        const fields = target.fields ?? {};
        const { read, failed } = await store(job, upload, fields);
        const queued = await repo.updateImport(db, job.id, {
          status: read - failed > 0 ? 'queued' : 'done',
          rows_read: read,
          rows_failed: failed,
          ...(read - failed > 0 ? {} : { finished_at: now() }),
        });
        return queued!;
      } catch (error) {
        await repo.deleteImport(db, job.id);
        throw error;
      }
    },

    /** The job, its counts including the chunks lanes committed and the worker has not folded in yet. */
    getImport: (actor: Principal | null, id: number): Promise<ImportRow> =>
      visibleJob(actor, id, repo.findImportWithProgress),

    /** The error report, `limit` lines after `afterLine`, in line order. */
    async readErrors(actor: Principal | null, id: number, afterLine: number, limit: number) {
      await visibleJob(actor, id);
      return repo.readErrors(db, id, afterLine, limit);
    },

    /**
     * Stops the job between chunks (202); a finished one is 409 INVALID_STATE. Its lock waits for the chunks
     * in flight (lanes share it), and a chunk starting after finds the job cancelled: none commits after the answer.
     */
    async cancelImport(actor: Principal | null, id: number): Promise<ImportRow> {
      await visibleJob(actor, id);
      return inOuterTransaction(db, async () => {
        const job = await repo.lockImport(db, id);
        if (!job || FINISHED.has(job.status))
          throw new AppError('INVALID_STATE', `Import ${id} is ${job?.status ?? 'gone'} and cannot be cancelled`);
        await repo.updateImport(db, id, { status: 'cancelled', finished_at: now(), locked_by: null });
        return (await repo.findImportWithProgress(db, id))!;
      });
    },

    /** A worker's step: claims a job (or keeps its own) and runs one chunk; true when there is more. */
    runNextChunk: createChunkRunner(db, targets, settings),
  };
}

export type ImportsService = ReturnType<typeof createImportsService>;
