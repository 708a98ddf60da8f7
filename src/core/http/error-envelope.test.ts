import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { migrateToLatest } from '../db/migrate.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { suiteDatabase } from '../../../test/support/suite-database.ts';
import { toAppError } from './error-envelope.ts';

for (const dialect of DIALECTS) {
  describe(`error envelope for database refusals (${dialect.name})`, { skip: dialect.skip }, () => {
    const suite = suiteDatabase(dialect, { poolSize: 1, setUp: (db) => migrateToLatest(db) });

    it('answers a write whose referenced row is gone (deleted mid-request) with 409 CONFLICT, not 500', async () => {
      const now = new Date().toISOString();
      const refusal = await suite.db
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
