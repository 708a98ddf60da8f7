import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { migrateDatabase } from '../bootstrap.ts';
import { loadConfig } from '../config/config.ts';
import { createDatabase } from '../core/db/database.ts';
import { migrationNames } from '../core/db/migrate.ts';
import { migrationsOfModules } from '../modules/index.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { runSeedCommand } from './seed-command.ts';

const quiet = { info: () => {}, warn: () => {} };

for (const dialect of DIALECTS) {
  describe(`seed migrations (${dialect.name})`, { skip: dialect.skip }, () => {
    it('applies every migration the server would, so the server then applies none', async () => {
      const database = await dialect.createDatabase();
      const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, LOG_LEVEL: 'silent' });
      const print = { log: console.log, error: console.error };
      console.log = console.error = () => {};
      try {
        await runSeedCommand(config, ['--users', '3', '--products', '3', '--orders', '2']);
      } finally {
        Object.assign(console, print);
      }
      const db = createDatabase(database.url);
      try {
        const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
        assert.deepEqual(
          rows.map((row) => row.name),
          migrationNames(migrationsOfModules),
        );
        const outcome = await migrateDatabase(db, quiet);
        assert.deepEqual(outcome, { applied: [], indexesBuilt: [], backfilled: [], freshDatabase: false });
      } finally {
        await db.destroy();
        await database.drop();
      }
    });
  });
}
