import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainAsRun, rowsRead, scansOf } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The revisions' retention (DECISIONS §19) runs in the workers while imports and writes go on: a turn
 * costs what was written since the last one, not the table. A plan that hash-joins the written items
 * with every revision reads the whole table each turn (here 52,000 rows for 2,000 new revisions).
 */
const postgres = dialectNamed('postgres');
const OLDER = 50_000;
const WRITTEN = 2_000;

describe('the revisions sweep (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(postgres);
    await sql`insert into revisions (resource, item_id, op, state, at, actor_type, actor_id, request_id)
      select 'product', i, 'update', '{}', now(), 'user', 1, null from generate_series(1, ${OLDER}) as i`.execute(
      t.server.db,
    );
    await sql`analyze revisions`.execute(t.server.db);
    while (await t.server.app.services.history.sweepRevisions());
  });
  after(() => t?.close());

  it('a turn after new writes reads the written items’ revisions, not every revision', async () => {
    await sql`insert into revisions (resource, item_id, op, state, at, actor_type, actor_id, request_id)
      select 'product', i, 'update', '{}', now(), 'user', 1, null from generate_series(1, ${WRITTEN}) as i`.execute(
      t.server.db,
    );
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => seen.push({ sql: text, parameters }));
    await t.server.app.services.history.sweepRevisions();
    stop();
    const deletes = seen.filter((statement) => /^\s*(with|delete)/i.test(statement.sql));
    assert.equal(deletes.length, 2, seen.map((statement) => statement.sql).join('\n'));
    for (const statement of deletes) {
      const plan = await explainAsRun(t.server.db, statement);
      const read = scansOf('revisions', plan).reduce((sum, scan) => sum + rowsRead(scan), 0);
      assert.ok(read <= 4 * WRITTEN, `${statement.sql}\nread ${read} revisions:\n${JSON.stringify(plan, null, 1)}`);
    }
  });
});
