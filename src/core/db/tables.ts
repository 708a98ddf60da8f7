import type { ColumnType } from 'kysely';

/**
 * The database type `Db` is built on (`Kysely<Tables>`). Core owns only its own tables here; each
 * module declares its tables and row types in `modules/<resource>/<resource>.table.ts` and adds them
 * to `Tables` there (`declare module '../../core/db/tables.ts' { interface Tables { ... } }`), so core
 * never imports a module and a new resource touches only its own folder. Rows are in the database's
 * own snake_case; only repositories see them, services speak in domain objects.
 *
 * Timestamps are ISO 8601 UTC strings with milliseconds on both drivers (PostgreSQL's timestamptz is
 * parsed back into that form by the pool).
 */
export type Timestamp = string;
/** SQLite has no boolean type: it stores 0/1, the adapter binds JS booleans as integers. */
export type SqlBool = ColumnType<boolean | number, boolean, boolean>;

/** Idempotency keys of core/idempotency. */
export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  request_hash: string;
  status_code: number;
  response_body: string;
  created_at: Timestamp;
}

/** The development JWT secret a PostgreSQL database keeps (DECISIONS §1; migration 0006): one row, id 1. */
export interface DevelopmentSecretTable {
  id: number;
  secret: string;
}

/** Every table: core's here, each module's merged in by its `<resource>.table.ts`. */
export interface Tables {
  idempotency_keys: IdempotencyKeysTable;
  development_secret: DevelopmentSecretTable;
}
