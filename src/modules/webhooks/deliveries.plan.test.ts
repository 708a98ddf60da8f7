import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainGenericPlan, type PlanNode } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { claimDueDeliveries } from './delivery-claims.repository.ts';

/**
 * The claim is a named statement, so after five runs PostgreSQL may plan it once for any values (a
 * generic plan), where a bound `status` cannot match the partial indexes `... where status = 'pending'`.
 * Under that plan each candidate's line must still be one index probe, not a scan of every pending
 * delivery of its endpoint (the backlog then drained at 12 deliveries a second: 434 ms a claim).
 */
const postgres = dialectNamed('postgres');
const PENDING = 2000;

/** Events in the outbox beside the deliveries' own: a claim must probe its candidates' events, not scan them. */
const OUTBOX = 50_000;

/** Index entries or rows every scan of `table` read, kept or filtered out. */
function rowsRead(node: PlanNode, table = 'webhook_deliveries'): number {
  const own =
    node['Node Type'].endsWith('Scan') && node['Relation Name'] === table
      ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}

describe('webhook delivery claim plan (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    // The delivery worker polls once a minute: the rows below stay unclaimed for the test's claim.
    t = await startTestServer(postgres, { REPORT_WORKER: 'false', WEBHOOK_DELIVERY_POLL_MS: '60000' });
    await sql`
      insert into webhook_endpoints (url, events, status, secret, created_at, updated_at)
      values ('http://127.0.0.1:9/', '["*"]', 'enabled', 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', now(), now())`.execute(
      t.server.db,
    );
    await sql`
      insert into webhook_deliveries (endpoint_id, event_tx, event_seq, event_id, event_type, resource, payload,
        status, attempts, next_attempt_at, created_at)
      select (select max(id) from webhook_endpoints), 1, i, 'evt_' || i, 'product.created', 'product:' || i, '{}',
        'pending', 0, now() - interval '1 minute', now()
      from generate_series(1, ${PENDING}) as i`.execute(t.server.db);
    // Their events (at the feed places the deliveries name), in a large outbox.
    await sql`
      insert into events (tx, seq, event_id, type, resource, data, created_at)
      overriding system value
      select 1, i, 'evt_' || i, 'product.created', 'product:' || i, '{}', now()
      from generate_series(1, ${OUTBOX}) as i`.execute(t.server.db);
    // Not analysed since: a burst of deliveries is planned on the statistics of a table that was nearly
    // empty (autovacuum comes later), where the bad plan was seen.
  });
  after(() => t?.close());

  it('checks each candidate’s line, and reads its event, with one index probe each under a generic plan', async () => {
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => seen.push({ sql: text, parameters }));
    const now = new Date();
    const claimed = await claimDueDeliveries(t.server.db, {
      holder: 'plan-test',
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + 60_000).toISOString(),
      limit: 8,
      room: new Map(),
      perEndpoint: 8,
    });
    stop();
    assert.equal(claimed.length, 8);
    const pick = seen.find((statement) => statement.sql.startsWith('select "d"."id"'));
    assert.ok(pick, seen.map((statement) => statement.sql).join('\n'));
    const plan = await explainGenericPlan(t.server.db, pick);
    // The candidates once (2,000) and a probe of a line each; a scan of the endpoint's pending
    // deliveries per candidate would read 2,000 × 2,000.
    const read = rowsRead(plan);
    assert.ok(read <= 3 * PENDING, `the claim read ${read} delivery rows:\n${JSON.stringify(plan, null, 1)}`);
    // Each candidate's event is one probe of the feed order index (the payload read with the claim).
    const events = rowsRead(plan, 'events');
    assert.ok(events <= PENDING, `the claim read ${events} events:\n${JSON.stringify(plan, null, 1)}`);
    assert.ok(
      claimed.every((item) => item.event?.data === '{}'),
      'each claimed delivery came with its event',
    );
  });
});
