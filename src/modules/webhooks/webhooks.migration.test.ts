import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateToLatest } from '../../core/db/migrate.ts';
import { dialectOf } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { migrationsOfModules } from '../index.ts';

/**
 * `0028-webhook-delivery-payload-optional` on a database with deliveries: their rows and copies kept, a
 * delivery without a copy accepted, and on SQLite (where the table is rebuilt) its indexes and the ids
 * it gave kept.
 */
const before0028 = Object.fromEntries(
  Object.entries(migrationsOfModules).filter(([name]) => name < '0028-webhook-delivery-payload-optional'),
);
const AT = '2026-11-29T08:00:00.000Z';

const delivery = (endpoint: number, n: number, payload: string | null) => ({
  endpoint_id: endpoint,
  event_tx: 0,
  event_seq: n,
  event_id: `evt_migrated_${n}`,
  event_type: 'product.created',
  resource: `product:${n}`,
  payload,
  status: 'dead' as const,
  attempts: 3,
  created_at: AT,
});

for (const dialect of DIALECTS) {
  describe(`webhooks migration 0028: payload optional (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, { poolSize: 1 });

    it('keeps the deliveries, their copies, indexes and ids, and takes a delivery without a copy', async () => {
      const db = suite.db;
      await migrateToLatest(db, before0028);
      const { id: endpoint } = await db
        .insertInto('webhook_endpoints')
        .values({
          url: 'http://127.0.0.1:9/',
          events: '["*"]',
          status: 'enabled',
          secret: 's',
          created_at: AT,
          updated_at: AT,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      await db
        .insertInto('webhook_deliveries')
        .values([1, 2, 3].map((n) => delivery(endpoint, n, `{"n":${n}}`)))
        .execute();
      // The last id given is gone: a new delivery must not get it again.
      await db.deleteFrom('webhook_deliveries').where('event_seq', '=', 3).execute();
      const indexes = () =>
        dialectOf(db) === 'sqlite'
          ? sql<{ name: string; sql: string }>`
              select name, sql from sqlite_schema where type = 'index' and tbl_name = 'webhook_deliveries' order by name`.execute(
              db,
            )
          : sql<{ name: string; sql: string }>`
              select indexname as name, indexdef as sql from pg_indexes where tablename = 'webhook_deliveries' order by indexname`.execute(
              db,
            );
      const indexesBefore = (await indexes()).rows;

      const { applied } = await migrateToLatest(db, migrationsOfModules);
      assert.ok(applied.includes('0028-webhook-delivery-payload-optional'), applied.join());

      const kept = await db.selectFrom('webhook_deliveries').select(['id', 'payload']).orderBy('id').execute();
      assert.deepEqual(
        kept.map((row) => row.payload),
        ['{"n":1}', '{"n":2}'],
      );
      assert.deepEqual((await indexes()).rows, indexesBefore);
      const added = await db
        .insertInto('webhook_deliveries')
        .values({ ...delivery(endpoint, 4, null), status: 'pending' })
        .returning(['id', 'payload'])
        .executeTakeFirstOrThrow();
      assert.equal(added.payload, null);
      assert.ok(Number(added.id) > Number(kept[1]!.id) + 1, `id ${added.id} given again`);
      // Still one delivery per (endpoint, event).
      await assert.rejects(
        db
          .insertInto('webhook_deliveries')
          .values(delivery(endpoint, 4, null))
          .execute(),
      );
    });
  });
}
