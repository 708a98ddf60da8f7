import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CompiledQuery, sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The revisions' retention on SQLite (DECISIONS §19; PostgreSQL's plan: revisions.sweep.plan.test.ts): a turn
 * looks up each written item's revisions by the item index, never scans the table. SQLite has one writer, so a
 * turn that read every revision would hold an import's next chunk for as long.
 */
const sqlite = dialectNamed('sqlite');
const OLDER = 20_000;
const WRITTEN = 500;

const insertRevisions = (count: number) => sql`
  with recursive n(i) as (select 1 union all select i + 1 from n where i < ${count})
  insert into revisions (resource, item_id, op, state, at, actor_type, actor_id, request_id)
  select 'product', i, 'update', '{}', '2026-11-29T00:00:00.000Z', 'user', 1, null from n`;

describe('the revisions sweep (sqlite)', { skip: sqlite.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(sqlite);
    await insertRevisions(OLDER).execute(t.server.db);
    await sql`analyze`.execute(t.server.db);
    while (await t.server.app.services.history.sweepRevisions());
  });
  after(() => t?.close());

  it('a turn after new writes searches the written items’ revisions by index, scanning none', async () => {
    await insertRevisions(WRITTEN).execute(t.server.db);
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => seen.push({ sql: text, parameters }));
    await t.server.app.services.history.sweepRevisions();
    stop();
    const deletes = seen.filter((statement) => /^\s*(with|delete)/i.test(statement.sql));
    assert.equal(deletes.length, 2, seen.map((statement) => statement.sql).join('\n'));
    for (const statement of deletes) {
      const plan = await t.server.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]),
      );
      const details = plan.rows.map((row) => row.detail);
      const scans = details.filter((detail) => /^SCAN (revisions|r)\b/.test(detail));
      assert.deepEqual(scans, [], `${statement.sql}\n${details.join('\n')}`);
    }
  });
});
