import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../database.ts';

/**
 * DECISIONS §1: with JWT_SECRET unset in development, a PostgreSQL database keeps the secret that signs
 * tokens (an SQLite one keeps it in a file beside the database), so the server and `cli token` on the same
 * DATABASE_URL sign alike and tokens survive a restart. One row at most. The table is the owner's and the
 * service role's only: PUBLIC's default privileges are revoked explicitly, whatever the cluster's defaults.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('development_secret')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('secret', 'text', (c) => c.notNull())
    .execute();
  if (dialectOf(db) === 'postgres') await sql`revoke all on table development_secret from public`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('development_secret').execute();
}
