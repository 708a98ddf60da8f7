import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../core/db/database.ts';
import { insertDemoData } from '../demo/demo-data.ts';
import { DIALECTS } from '../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../test/support/test-server.ts';
import { gql, GRAPHQL_TEST_ENV } from '../../test/support/graphql-test-client.ts';
import { createExecutionGate } from './execution-gate.ts';

describe('the execution gate', () => {
  it('lets `slots` callers in at once and the next ones in the order they came, as slots are left', async () => {
    const gate = createExecutionGate(2);
    const entered: number[] = [];
    const callers = [1, 2, 3, 4].map((n) => gate.enter().then(() => entered.push(n)));
    await Promise.resolve();
    await Promise.resolve();
    assert.deepEqual(entered, [1, 2]);
    assert.equal(gate.executing, 2);
    assert.equal(gate.waiting, 2);
    gate.leave();
    await callers[2];
    assert.deepEqual(entered, [1, 2, 3]);
    gate.leave();
    await callers[3];
    assert.deepEqual(entered, [1, 2, 3, 4]);
    gate.leave();
    gate.leave();
    assert.equal(gate.executing, 0);
    assert.equal(gate.waiting, 0);
  });
});

/** Cost 10 × (1 + 20 × (1 + 20 × (1 + 1))) = 8,210: over GRAPHQL_HEAVY_COST's default of 1,000. */
const HEAVY = '{ users(limit: 10) { posts { comments { author { name } } } } }';

for (const dialect of DIALECTS) {
  describe(`expensive GraphQL operations take turns (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, GRAPHQL_HEAVY_CONCURRENCY: '1' });
      // Users with posts with comments: every level of the operation reads something.
      await insertDemoData(t.server.db);
    });
    after(() => t?.close());

    it('with one slot, runs concurrent expensive operations one after the other, each answered in full', async () => {
      const tables: string[] = [];
      const stop = observeQueries(t.server.db, (sql) => {
        const table = /^select .* from "(posts|comments)"/i.exec(sql)?.[1];
        if (table) tables.push(table);
      });
      try {
        const answers = await Promise.all(Array.from({ length: 6 }, () => gql(t, HEAVY, { token: t.adminToken })));
        for (const answer of answers) {
          assert.equal(answer.status, 200);
          assert.equal(answer.body.errors, undefined, answer.text);
          assert.ok(Array.isArray(answer.body.data.users));
        }
      } finally {
        stop();
      }
      // Each operation reads its posts, then its comments, before the next one starts: no interleaving.
      assert.deepEqual(tables, Array.from({ length: 6 }, () => ['posts', 'comments']).flat(), tables.join(' '));
    });

    it('gives the slot back when an expensive operation fails in execution', { timeout: 30_000 }, async () => {
      // Without a token the relations are refused in execution: 200 with errors.
      const refused = await gql(t, HEAVY);
      assert.equal(refused.status, 200);
      assert.ok(refused.body.errors?.length, refused.text);
      const answered = await gql(t, HEAVY, { token: t.adminToken });
      assert.equal(answered.status, 200);
      assert.equal(answered.body.errors, undefined, answered.text);
    });
  });
}
