import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';

/** A module's migration that creates one table. */
const creates = (table: string) => ({
  async up(db: Kysely<unknown>) {
    await sql`create table ${sql.table(table)} (id integer primary key)`.execute(db);
  },
});

describe('migrations', () => {
  it("applies a module's migration named before one already applied (modules number their own)", async () => {
    const db = createDatabase('sqlite::memory:');
    try {
      const first = await migrateToLatest(db, { '0010-webhook-later': creates('later') });
      assert.ok(first.applied.includes('0010-webhook-later'));
      const second = await migrateToLatest(db, {
        '0010-users-earlier': creates('earlier'),
        '0010-webhook-later': creates('later'),
      });
      assert.deepEqual(second.applied, ['0010-users-earlier']);
      await sql`select id from earlier`.execute(db);
    } finally {
      await db.destroy();
    }
  });
});
