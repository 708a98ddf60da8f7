import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainAsRun, rowsRead, scansOf } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * The audit's filters (DECISIONS §19) each have an index: a rare `op` or `resource`, written long ago
 * under many newer revisions, is found by key. Walking the revisions newest first instead reads every
 * newer revision (here 20,000) to fill one page.
 */
const postgres = dialectNamed('postgres');
const NEWER = 20_000;

describe('the audit filtered by a rare value (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(postgres);
    const row = `'{}', now(), 'user', 1, null`;
    await sql`insert into revisions (resource, item_id, op, state, at, actor_type, actor_id, request_id)
      select 'comment', i, 'purge', ${sql.raw(row)} from generate_series(1, 5) as i`.execute(t.server.db);
    await sql`insert into revisions (resource, item_id, op, state, at, actor_type, actor_id, request_id)
      select 'product', i % 500, 'update', ${sql.raw(row)} from generate_series(1, ${NEWER}) as i`.execute(t.server.db);
    await sql`analyze revisions`.execute(t.server.db);
  });
  after(() => t?.close());

  for (const filter of ['op=purge', 'resource=comment']) {
    it(`GET /api/v2/audit?${filter} reads the page through an index, not every newer revision`, async () => {
      const seen: { sql: string; parameters: readonly unknown[] }[] = [];
      const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) =>
        seen.push({ sql: text, parameters }),
      );
      const res = await t.request('GET', `/api/v2/audit?${filter}&limit=3`, { token: t.adminToken });
      stop();
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 3);
      const page = seen.find((statement) => /from "revisions"/.test(statement.sql) && /limit/.test(statement.sql));
      assert.ok(page, seen.map((statement) => statement.sql).join('\n'));
      const plan = await explainAsRun(t.server.db, page);
      const read = scansOf('revisions', plan).reduce((sum, scan) => sum + rowsRead(scan), 0);
      assert.ok(read < 100, `the audit page read ${read} revisions:\n${JSON.stringify(plan, null, 1)}`);
    });
  }
});
