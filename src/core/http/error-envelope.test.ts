import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDatabase, type Db } from '../db/database.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { toAppError } from './error-envelope.ts';

for (const dialect of DIALECTS) {
  describe(`error envelope for database refusals (${dialect.name})`, { skip: dialect.skip }, () => {
    let db: Db;
    let drop: () => Promise<void>;
    before(async () => {
      const database = await dialect.createDatabase();
      drop = database.drop;
      db = createDatabase(database.url, { poolSize: 1 });
      await migrateToLatest(db);
    });
    after(async () => {
      await db?.destroy();
      await drop?.();
    });

    it('answers a write whose referenced row is gone (deleted mid-request) with 409 CONFLICT, not 500', async () => {
      const now = new Date().toISOString();
      const refusal = await db
        .insertInto('posts')
        .values({ author_id: 2147483647, title: 't', content: 'c', created_at: now, updated_at: now })
        .execute()
        .then(
          () => null,
          (error: unknown) => error,
        );
      assert.ok(refusal, 'the database refused the orphan row');
      const answer = toAppError(refusal);
      assert.equal(answer.status, 409);
      assert.equal(answer.code, 'CONFLICT');
      assert.doesNotMatch(answer.message, /FOREIGN|constraint|posts/i);
    });
  });
}
