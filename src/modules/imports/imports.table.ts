import type { Generated, Selectable } from 'kysely';
import type { Timestamp } from '../../core/db/tables.ts';

export type ImportStatus = 'uploading' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One import (DECISIONS §18): a stored job the workers run chunk by chunk from `position`. */
export interface ImportsTable {
  id: Generated<number>;
  resource: string;
  mode: string;
  dry_run: number;
  status: ImportStatus;
  owner_id: number;
  owner_role: string;
  /** The caller's `Idempotency-Key` (a retried upload is the same job), unique per owner. */
  idempotency_key: string | null;
  /** The last line written (its chunk committed with it): a resumed run goes on after it. */
  position: number;
  rows_read: number;
  rows_created: number;
  rows_updated: number;
  rows_failed: number;
  /** Failed attempts at the chunk after `position` (back to 0 when a chunk commits); at IMPORT_MAX_ATTEMPTS the job fails. */
  attempts: Generated<number>;
  locked_by: string | null;
  locked_until: Timestamp | null;
  created_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
}

/** The uploaded rows, stored as the upload streamed in: the row's fields as JSON, by its line in the file. */
export interface ImportRowsTable {
  import_id: number;
  line: number;
  data: string;
}

export interface ImportErrorsTable {
  import_id: number;
  line: number;
  field: string | null;
  message: string;
}

/**
 * A chunk written by a lane (IMPORT_LANES) and not yet folded into its job's row: its stored lines
 * `first_line`..`last_line` are written, its counts not yet added to the job's.
 */
export interface ImportChunksTable {
  import_id: number;
  first_line: number;
  last_line: number;
  created: number;
  updated: number;
  failed: number;
}

declare module '../../core/db/tables.ts' {
  interface Tables {
    imports: ImportsTable;
    import_rows: ImportRowsTable;
    import_errors: ImportErrorsTable;
    import_chunks: ImportChunksTable;
  }
}

export type ImportRow = Selectable<ImportsTable>;
