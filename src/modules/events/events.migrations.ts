import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';

/**
 * The outbox tables. On PostgreSQL `tx` is set by the insert (the writing transaction's id as xid8,
 * which never wraps, or the resource's latest place if higher: events.repository.ts); on SQLite it
 * is 0 and `seq` (AUTOINCREMENT: never reused, even after the purge) alone orders the feed.
 */
export const eventsMigrations = {
  '0007-events': {
    async up(db: Kysely<unknown>): Promise<void> {
      const postgres = dialectOf(db) === 'postgres';
      await db.schema
        .createTable('events')
        .addColumn('seq', postgres ? 'bigint' : 'integer', (col) =>
          postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
        )
        .addColumn('tx', postgres ? 'bigint' : 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('event_id', 'text', (col) => col.notNull().unique())
        .addColumn('type', 'text', (col) => col.notNull())
        .addColumn('resource', 'text', (col) => col.notNull())
        .addColumn('data', 'text', (col) => col.notNull())
        .addColumn('created_at', postgres ? 'timestamptz' : 'text', (col) => col.notNull())
        .execute();
      await db.schema.createIndex('events_feed_order_idx').on('events').columns(['tx', 'seq']).execute();
      await db.schema.createIndex('events_resource_idx').on('events').columns(['resource', 'tx']).execute();
      await db.schema.createIndex('events_created_at_idx').on('events').column('created_at').execute();
      await db.schema
        .createTable('event_consumers')
        .addColumn('consumer', 'text', (col) => col.primaryKey())
        .addColumn('tx', postgres ? 'bigint' : 'integer', (col) => col.notNull())
        .addColumn('seq', postgres ? 'bigint' : 'integer', (col) => col.notNull())
        .addColumn('updated_at', postgres ? 'timestamptz' : 'text', (col) => col.notNull())
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('event_consumers').execute();
      await db.schema.dropTable('events').execute();
    },
  },
  /** A consumer (the webhook fan-out, the NATS publisher) is advanced by one instance at a time: its lease. */
  '0008-event-consumer-leases': {
    async up(db: Kysely<unknown>): Promise<void> {
      const postgres = dialectOf(db) === 'postgres';
      await db.schema.alterTable('event_consumers').addColumn('holder', 'text').execute();
      await db.schema
        .alterTable('event_consumers')
        .addColumn('lease_until', postgres ? 'timestamptz' : 'text')
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('event_consumers').dropColumn('lease_until').execute();
      await db.schema.alterTable('event_consumers').dropColumn('holder').execute();
    },
  },
  /**
   * Fewer indexes for every event to keep up. Both: no `created_at` index (the purge walks the feed's
   * order from the oldest: events.repository.ts). PostgreSQL: the primary key is the feed order `(tx,
   * seq)` itself, in place of a key on `seq` beside an index on `(tx, seq)`. SQLite: `tx` is always 0
   * there, so `seq` (the row id) alone is the feed order, and the resource's latest place is never looked
   * up (one writer at a time): the `(tx, seq)` and `(resource, tx)` indexes go. An event of PostgreSQL
   * keeps three index entries (was five), one of SQLite one (was four).
   */
  '0014-events-fewer-indexes': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('events_created_at_idx').execute();
      if (dialectOf(db) === 'postgres') {
        await sql`alter table events drop constraint events_pkey, add constraint events_pkey primary key (tx, seq)`.execute(
          db,
        );
        await db.schema.dropIndex('events_feed_order_idx').execute();
        return;
      }
      await db.schema.dropIndex('events_feed_order_idx').execute();
      await db.schema.dropIndex('events_resource_idx').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('events_feed_order_idx').on('events').columns(['tx', 'seq']).execute();
      await db.schema.createIndex('events_created_at_idx').on('events').column('created_at').execute();
      if (dialectOf(db) === 'postgres') {
        await sql`alter table events drop constraint events_pkey, add constraint events_pkey primary key (seq)`.execute(
          db,
        );
        return;
      }
      await db.schema.createIndex('events_resource_idx').on('events').columns(['resource', 'tx']).execute();
    },
  },
  /**
   * The trace context of the request that wrote each event (DECISIONS §17): its W3C `traceparent` and
   * `tracestate`, null when tracing is off or the write ran outside any trace. Nullable with no default:
   * adding them rewrites no row on either database.
   */
  '0015-events-trace-context': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').addColumn('traceparent', 'text').execute();
      await db.schema.alterTable('events').addColumn('tracestate', 'text').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').dropColumn('tracestate').execute();
      await db.schema.alterTable('events').dropColumn('traceparent').execute();
    },
  },
  /**
   * The import that wrote an event's row (DECISIONS §18: `importId` beside `data`), null for every other
   * write. Nullable with no default: adding it rewrites no row on either database.
   */
  '0024-events-import-id': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').addColumn('import_id', 'integer').execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').dropColumn('import_id').execute();
    },
  },
};
