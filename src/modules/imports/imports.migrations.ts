import type { Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

export const importsMigrations = {
  /** DECISIONS §18: imports as stored jobs, their uploaded rows and their error reports. */
  '0021-imports': {
    async up(db: Kysely<unknown>): Promise<void> {
      // As core's column types (core/db/migrations, which a module's migrations do not import).
      const postgres = dialectOf(db) === 'postgres';
      const types = { timestamp: postgres ? ('timestamptz' as const) : ('text' as const) };
      await db.schema
        .createTable('imports')
        .addColumn('id', 'integer', (c) =>
          postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
        )
        .addColumn('resource', 'varchar(20)', (c) => c.notNull())
        .addColumn('mode', 'varchar(10)', (c) => c.notNull())
        .addColumn('dry_run', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('status', 'varchar(12)', (c) => c.notNull())
        .addColumn('owner_id', 'integer', (c) => c.notNull())
        .addColumn('owner_role', 'varchar(10)', (c) => c.notNull())
        .addColumn('idempotency_key', 'varchar(200)')
        .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rows_read', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rows_created', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rows_updated', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('rows_failed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked_by', 'varchar(100)')
        .addColumn('locked_until', types.timestamp)
        .addColumn('created_at', types.timestamp, (c) => c.notNull())
        .addColumn('started_at', types.timestamp)
        .addColumn('finished_at', types.timestamp)
        .execute();
      await db.schema
        .createIndex('imports_owner_key')
        .unique()
        .on('imports')
        .columns(['owner_id', 'idempotency_key'])
        .execute();
      await db.schema.createIndex('imports_status_idx').on('imports').columns(['status', 'id']).execute();
      await db.schema
        .createTable('import_rows')
        .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
        .addColumn('line', 'integer', (c) => c.notNull())
        .addColumn('data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_rows_pk', ['import_id', 'line'])
        .execute();
      await db.schema
        .createTable('import_errors')
        .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
        .addColumn('line', 'integer', (c) => c.notNull())
        .addColumn('field', 'varchar(200)')
        .addColumn('message', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('import_errors_line_idx')
        .on('import_errors')
        .columns(['import_id', 'line'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('import_errors').execute();
      await db.schema.dropTable('import_rows').execute();
      await db.schema.dropTable('imports').execute();
    },
  },
  /**
   * A chunk whose writing throws (not a row's validation error, which is reported per line) is tried at
   * most IMPORT_MAX_ATTEMPTS times, then the job fails: the failed attempts at the current chunk.
   */
  '0024-imports-attempts': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('imports')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('imports').dropColumn('attempts').execute();
    },
  },
  /**
   * Lanes (IMPORT_LANES): chunks of one job written side by side on PostgreSQL, none of them updating the
   * job's row (which would make them queue on its lock). Each committed chunk leaves a row here in its own
   * transaction, with its rows; the worker folds the done chunks that follow `position` into the job's row.
   */
  '0029-import-chunks': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('import_chunks')
        .addColumn('import_id', 'integer', (c) => c.notNull().references('imports.id').onDelete('cascade'))
        .addColumn('first_line', 'integer', (c) => c.notNull())
        .addColumn('last_line', 'integer', (c) => c.notNull())
        .addColumn('created', 'integer', (c) => c.notNull())
        .addColumn('updated', 'integer', (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('import_chunks_pk', ['import_id', 'first_line'])
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('import_chunks').execute();
    },
  },
};
