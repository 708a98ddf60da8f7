import type { Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * The trash (trash.table.ts). Its reads: an item by its key (the primary key), a deletion's rows
 * (`deletion_id`), a resource's trash newest first and an owner's (`?trashed=only`), and the sweep of
 * items past retention (`deleted_at`).
 */
export const historyMigrations = {
  '0022-trash': {
    async up(db: Kysely<unknown>): Promise<void> {
      const timestamp = dialectOf(db) === 'postgres' ? 'timestamptz' : 'text';
      await db.schema
        .createTable('trash_items')
        .addColumn('resource', 'varchar(16)', (c) => c.notNull())
        .addColumn('item_key', 'varchar(64)', (c) => c.notNull())
        .addColumn('item_id', 'integer')
        .addColumn('owner_id', 'integer')
        .addColumn('parent_id', 'integer')
        .addColumn('deletion_id', 'varchar(64)', (c) => c.notNull())
        .addColumn('rank', 'integer', (c) => c.notNull())
        .addColumn('deleted_at', timestamp, (c) => c.notNull())
        .addColumn('deleted_by_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('deleted_by_id', 'integer')
        .addColumn('row_data', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('trash_items_pk', ['resource', 'item_key'])
        .execute();
      await db.schema.createIndex('trash_items_deletion_idx').on('trash_items').columns(['deletion_id']).execute();
      await db.schema
        .createIndex('trash_items_resource_idx')
        .on('trash_items')
        .columns(['resource', 'deleted_at', 'item_key'])
        .execute();
      await db.schema
        .createIndex('trash_items_owner_idx')
        .on('trash_items')
        .columns(['resource', 'owner_id', 'deleted_at', 'item_key'])
        .execute();
      await db.schema
        .createIndex('trash_items_parent_idx')
        .on('trash_items')
        .columns(['resource', 'parent_id', 'deleted_at', 'item_key'])
        .execute();
      await db.schema.createIndex('trash_items_deleted_at_idx').on('trash_items').columns(['deleted_at']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('trash_items').ifExists().execute();
    },
  },
  /**
   * Revisions (revisions.table.ts). Reads: an item's history newest first `(resource, item_id, id)`, the
   * audit by `id` (the key), by actor `(actor_id, id)`, by time `(at)`; retention by `at` and per item.
   */
  '0025-revisions': {
    async up(db: Kysely<unknown>): Promise<void> {
      const postgres = dialectOf(db) === 'postgres';
      await db.schema
        .createTable('revisions')
        .addColumn('id', 'integer', (c) =>
          postgres ? c.primaryKey().generatedByDefaultAsIdentity() : c.primaryKey().autoIncrement(),
        )
        .addColumn('resource', 'varchar(16)', (c) => c.notNull())
        .addColumn('item_id', 'integer', (c) => c.notNull())
        .addColumn('op', 'varchar(8)', (c) => c.notNull())
        .addColumn('at', postgres ? 'timestamptz' : 'text', (c) => c.notNull())
        .addColumn('actor_type', 'varchar(8)', (c) => c.notNull())
        .addColumn('actor_id', 'integer')
        .addColumn('request_id', 'varchar(128)')
        .addColumn('state', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('revisions_item_idx')
        .on('revisions')
        .columns(['resource', 'item_id', 'id'])
        .execute();
      await db.schema.createIndex('revisions_actor_idx').on('revisions').columns(['actor_id', 'id']).execute();
      await db.schema.createIndex('revisions_at_idx').on('revisions').columns(['at']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('revisions').ifExists().execute();
    },
  },
  /**
   * The audit's filters `resource` and `op`, newest first: each its own `(filter, id)` index, so that a rare
   * value is found by key, not by walking every revision newest first. Built online (a large revisions table
   * stays writable).
   */
  '0027-revisions-audit': {
    async up(): Promise<void> {},
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('revisions_resource_idx').ifExists().execute();
      await db.schema.dropIndex('revisions_op_idx').ifExists().execute();
    },
    onlineIndexes: [
      { name: 'revisions_resource_idx', table: 'revisions', definition: '(resource, id)' },
      { name: 'revisions_op_idx', table: 'revisions', definition: '(op, id)' },
    ],
  },
};
