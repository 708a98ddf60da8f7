import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../../core/db/database.ts';
import { userCountsMigration } from './users.counters.migration.ts';
import { usersEraseMigration } from './users.erase.migration.ts';

/**
 * Indexes behind the users list's filters and sorts (users.query.ts) that migration 0001 has not:
 * role, status, name, age and created_at each have `(column, id)` there, the email its unique index.
 *
 * - `(email_verified, id)`: the boolean filter and sort.
 * - PostgreSQL: `(age desc nulls last, id desc)`. Ages sort nulls last in both directions; an
 *   ascending index read backwards gives the nulls first, so the descending order needs its own.
 *   SQLite sorts `nulls last` itself (documented in docs/QUERYING.md).
 * - PostgreSQL with `pg_trgm` (as migration 0002 for products' names): trigram indexes for
 *   `name[contains]` and `email[contains]` (ILIKE '%text%').
 */
export const usersMigrations = {
  '0010-users-list-queries': {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('users_email_verified_idx').on('users').columns(['email_verified', 'id']).execute();
      if (dialectOf(db) !== 'postgres') return;
      await sql`create index users_age_desc_idx on users (age desc nulls last, id desc)`.execute(db);
      const { rows } = await sql<{ ok: boolean }>`
        select exists (select 1 from pg_extension where extname = 'pg_trgm')
            or (exists (select 1 from pg_available_extensions where name = 'pg_trgm')
                and has_database_privilege(current_database(), 'CREATE')) as ok`.execute(db);
      if (rows[0]?.ok) {
        await sql`create extension if not exists pg_trgm`.execute(db);
        await sql`create index users_name_trgm_idx on users using gin (name gin_trgm_ops)`.execute(db);
        await sql`create index users_email_trgm_idx on users using gin (email gin_trgm_ops)`.execute(db);
      }
    },
    async down(db: Kysely<unknown>): Promise<void> {
      for (const name of [
        'users_email_trgm_idx',
        'users_name_trgm_idx',
        'users_age_desc_idx',
        'users_email_verified_idx',
      ]) {
        await db.schema.dropIndex(name).ifExists().execute();
      }
    },
  },
  '0010-users-user-counts': userCountsMigration,
  /**
   * PostgreSQL estimates `name[contains]` / `email[contains]` (ILIKE '%text%') from the column's histogram:
   * with the default 100 buckets, whether one sampled bucket happens to hold the text swings the estimate
   * from a few rows to 1% of the table, and the planner then walks the id index past every row instead of
   * reading the trigram index (the plan test failed 3 runs in 6 on 50,000 users). 1,000 buckets, sampled
   * from 300,000 rows, keep the estimate near the truth.
   */
  '0011-users-text-statistics': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table users alter column name set statistics 1000, alter column email set statistics 1000`.execute(
        db,
      );
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table users alter column name set statistics -1, alter column email set statistics -1`.execute(
        db,
      );
    },
  },
  /**
   * ANALYZE of the users table. PostgreSQL: 1,000 buckets for the creation time as well, and ANALYZE of
   * the columns given 1,000 by 0011 and here. A statistics target takes effect at the next ANALYZE, which on a freshly seeded
   * database (the seed analyzes before the modules migrate) autovacuum runs only once a tenth of the
   * table has changed. With 100 buckets the last one reached from the newest seeded users to the
   * administrator made at the service's start, so `createdAt[gte]` of a date after every seeded user
   * (matching the administrator alone) was estimated at 1,575 of 250,000 users, and even planned for
   * its value the page walked every id; with 1,000 it is 159, read from the `(created_at, id)` index.
   */
  '0012-users-statistics-analyzed': {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') {
        // SQLite keeps no statistics until ANALYZE: without them `role[in]=admin,user&sort=-age` read every
        // user through the role index and sorted them all (100,000 users: 178 ms); with them it walks the
        // age index (9 ms). An empty table gets no statistics, so a new database plans as before.
        await sql`analyze users`.execute(db);
        return;
      }
      await sql`alter table users alter column created_at set statistics 1000`.execute(db);
      await sql`analyze users (name, email, created_at)`.execute(db);
    },
    async down(db: Kysely<unknown>): Promise<void> {
      if (dialectOf(db) !== 'postgres') return;
      await sql`alter table users alter column created_at set statistics -1`.execute(db);
    },
  },
  ...usersEraseMigration,
};
