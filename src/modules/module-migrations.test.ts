import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { createDatabase } from '../core/db/database.ts';
import { migrateToLatest } from '../core/db/migrate.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { defineModule, moduleMigrations } from './module.ts';

const createWidgets = {
  up: async (db: Kysely<unknown>) => {
    await db.schema
      .createTable('widgets')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .execute();
  },
  down: async (db: Kysely<unknown>) => {
    await db.schema.dropTable('widgets').execute();
  },
};

/** A resource as a new one would arrive: its own folder's descriptor, its table in its own migration. */
const widgetsModule = defineModule({
  name: 'widgets',
  createService: () => ({}),
  migrations: { '0100-widgets': createWidgets },
});

for (const dialect of DIALECTS) {
  describe(`a module's own migrations (${dialect.name})`, { skip: dialect.skip }, () => {
    it('are applied after core’s history, once, by the same migrator', async () => {
      const database = await dialect.createDatabase();
      const db = createDatabase(database.url);
      try {
        const first = await migrateToLatest(db, moduleMigrations([widgetsModule]));
        assert.equal(first.applied.at(-1), '0100-widgets');
        assert.ok(first.applied.includes('0001-initial-schema'));
        await sql`insert into widgets (id, name) values (1, 'sprocket')`.execute(db);
        const again = await migrateToLatest(db, moduleMigrations([widgetsModule]));
        assert.deepEqual(again.applied, []);
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}

describe('module migrations', () => {
  it('refuse a name core’s history or another module already uses', async () => {
    const clash = defineModule({
      name: 'clash',
      createService: () => ({}),
      migrations: { '0100-widgets': createWidgets },
    });
    assert.throws(() => moduleMigrations([widgetsModule, clash]), /declared by two modules/);
    const db = createDatabase('sqlite::memory:');
    try {
      await assert.rejects(migrateToLatest(db, { '0001-initial-schema': createWidgets }), /already taken/);
    } finally {
      await db.destroy();
    }
  });
});
