import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';
import { rebuildSqliteTable } from '../../core/db/sqlite-table-rebuild.migration.ts';

/** The webhook consumer's name in `event_consumers` (a migration keeps its own copy of a constant). */
const CONSUMER = 'webhooks';

/**
 * Endpoints and deliveries. Every query of the delivery worker has its index: the claim reads
 * `webhook_deliveries_due_idx` (pending, by due time), the head-of-line check
 * `webhook_deliveries_line_idx` (pending, per endpoint and resource in feed order), the log
 * `webhook_deliveries_log_idx`, the retention hold `webhook_deliveries_position_idx`.
 */
export const webhooksMigrations = {
  '0009-webhooks': {
    async up(db: Kysely<unknown>): Promise<void> {
      const postgres = dialectOf(db) === 'postgres';
      const time = postgres ? 'timestamptz' : 'text';
      const big = postgres ? 'bigint' : 'integer';
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'integer', (col) =>
          postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
        )
        .addColumn('url', 'text', (col) => col.notNull())
        .addColumn('events', 'text', (col) => col.notNull())
        .addColumn('description', 'text')
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('secret', 'text', (col) => col.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', time)
        .addColumn('disabled_at', time)
        .addColumn('created_at', time, (col) => col.notNull())
        .addColumn('updated_at', time, (col) => col.notNull())
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', big, (col) =>
          postgres ? col.primaryKey().generatedByDefaultAsIdentity() : col.primaryKey().autoIncrement(),
        )
        .addColumn('endpoint_id', 'integer', (col) =>
          col.notNull().references('webhook_endpoints.id').onDelete('cascade'),
        )
        .addColumn('event_tx', big, (col) => col.notNull())
        .addColumn('event_seq', big, (col) => col.notNull())
        .addColumn('event_id', 'text', (col) => col.notNull())
        .addColumn('event_type', 'text', (col) => col.notNull())
        .addColumn('resource', 'text', (col) => col.notNull())
        .addColumn('payload', 'text', (col) => col.notNull())
        .addColumn('status', 'text', (col) => col.notNull())
        .addColumn('attempts', 'integer', (col) => col.notNull().defaultTo(0))
        .addColumn('last_attempt_at', time)
        .addColumn('last_response_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('next_attempt_at', time)
        .addColumn('claimed_by', 'text')
        .addColumn('claimed_until', time)
        .addColumn('created_at', time, (col) => col.notNull())
        .execute();
      // One delivery per (endpoint, event), whatever the fan-out does twice; a replay reuses the row.
      await db.schema
        .createIndex('webhook_deliveries_endpoint_event_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'event_id'])
        .unique()
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due_idx')
        .on('webhook_deliveries')
        .columns(['next_attempt_at', 'id'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_line_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'resource', 'event_tx', 'event_seq'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_position_idx')
        .on('webhook_deliveries')
        .columns(['event_tx', 'event_seq'])
        .where(sql.ref('status'), '=', 'pending')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_log_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'id'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_log_status_idx')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'status', 'id'])
        .execute();
      // The fan-out consumes the feed from its start: no event committed after the first endpoint can
      // slip past a consumer that registered late (the events before an endpoint match none of it).
      await db
        .insertInto('event_consumers' as never)
        .values({ consumer: CONSUMER, tx: 0, seq: 0, updated_at: new Date().toISOString() } as never)
        .execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db
        .deleteFrom('event_consumers' as never)
        .where(sql.ref('consumer'), '=', CONSUMER)
        .execute();
      await db.schema.dropTable('webhook_deliveries').execute();
      await db.schema.dropTable('webhook_endpoints').execute();
    },
  },
  /**
   * The subscriptions an endpoint had before each change of its `events` or `status` (see
   * `webhook.ts`'s `subscriptionAt`). An endpoint disabled before this migration was enabled, with its
   * events, until `disabled_at`: the rule the fan-out followed until now.
   */
  '0010-webhook-endpoint-history': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('webhook_endpoints')
        .addColumn('history', 'text', (col) => col.notNull().defaultTo('[]'))
        .execute();
      const disabled = await sql<{ id: number; events: string; disabled_at: string | Date }>`
        select id, events, disabled_at from webhook_endpoints where status = 'disabled' and disabled_at is not null
      `.execute(db);
      for (const row of disabled.rows) {
        const until = row.disabled_at instanceof Date ? row.disabled_at.toISOString() : row.disabled_at;
        const history = JSON.stringify([{ until, enabled: true, events: JSON.parse(row.events) as string[] }]);
        await sql`update webhook_endpoints set history = ${history} where id = ${row.id}`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('webhook_endpoints').dropColumn('history').execute();
    },
  },
  /**
   * PostgreSQL: the deliveries' statistics renewed after every thousand changed rows, not after a tenth of
   * the table. The claim is planned on them, and while they say pending deliveries are rare (a table of
   * successes, analyzed before a backlog built up) it checks each candidate's line by reading every
   * pending delivery of the endpoint: at 20,000 pending a claim ran into the statement timeout, and every
   * claim after it. A replay renews them itself (webhooks.service.ts); this covers a backlog built by the
   * fan-out (an endpoint down for hours). The table's own setting: nothing is rewritten or locked.
   */
  '0018-webhook-deliveries-analyzed-often': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table webhook_deliveries set (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 1000)`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table webhook_deliveries reset (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold)`.execute(
        db,
      );
    },
  },
  /**
   * A delivery's `payload` may be null: the event's JSON is read from the outbox when it is sent, and
   * copied into the row only when the delivery dies (README.md, "How an event reaches an endpoint"). Rows
   * written before keep their copies. PostgreSQL drops the constraint in the catalogue (nothing is
   * rewritten); SQLite cannot drop a constraint, so the table is rebuilt with its indexes as SQLite's
   * documentation describes (one process owns the file, so nothing waits behind the copy but its start).
   */
  '0028-webhook-delivery-payload-optional': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) === 'postgres') {
        await sql`alter table webhook_deliveries alter column payload drop not null`.execute(db);
        return;
      }
      await rebuildSqliteTable(db, 'webhook_deliveries', (ddl) =>
        ddl.replace(/"payload" text not null/i, '"payload" text'),
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) === 'postgres') {
        await sql`alter table webhook_deliveries alter column payload set not null`.execute(db);
        return;
      }
      await rebuildSqliteTable(db, 'webhook_deliveries', (ddl) =>
        ddl.replace(/"payload" text\b(?! not null)/i, '"payload" text not null'),
      );
    },
  },
};
