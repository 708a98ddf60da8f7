import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainGenericPlan, rowsRead, scansOf } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { createEndpoint } from '../../../test/support/webhooks.ts';

/**
 * A replay makes thousands of deliveries pending at once, faster than autovacuum renews the table's
 * statistics (a minute later at best). Planned on statistics that knew no pending delivery, the claim's
 * candidates statement read every pending delivery of the endpoint, and at 20,000 its line check
 * scanned them all again for each one: the statement timeout ran out on every claim and the worker
 * delivered nothing in the 10 s after a 100,000-event replay (bench/replay-cost.ts --worker).
 */
const postgres = dialectNamed('postgres');
const REPLAYED = 20_000;

describe('webhook replay: the claim after it (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let r: WebhookReceiver;
  before(async () => {
    // The worker claims when the replay wakes it, and not again (its poll is a minute away).
    // A claim planned on stale statistics runs into the statement timeout (15 s by default; 5 here).
    t = await startTestServer(postgres, {
      REPORT_WORKER: 'false',
      WEBHOOK_DELIVERY_POLL_MS: '60000',
      DATABASE_STATEMENT_TIMEOUT_MS: '5000',
    });
    r = await startWebhookReceiver();
    // The receiver holds every request: the backlog stays pending for the explained claim.
    r.script('/held', { hang: true });
    // The events to replay, before the endpoint exists (the fan-out makes no delivery of them).
    await sql`
      insert into events (tx, event_id, type, resource, data, created_at)
      select 0, 'evt_replayed_' || i, 'product.created', 'product:' || i, '{}', now()
      from generate_series(1, ${REPLAYED}) as i`.execute(t.server.db);
  });
  after(async () => {
    await t?.close();
    await r?.close();
  });

  it('starts sending a replay of 20,000 at once, its claim reading its candidates, not the backlog', async () => {
    const endpoint = await createEndpoint(t, `${r.url}/held`);
    const claims: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => {
      if (text.startsWith('select "d"."id"')) claims.push({ sql: text, parameters });
    });
    try {
      const replay = await t.request('POST', `/api/webhooks/${endpoint.id}/replay`, {
        token: t.adminToken,
        body: { since: new Date(Date.now() - 60_000).toISOString() },
      });
      assert.equal(replay.status, 202, replay.text);
      assert.equal(replay.body.queued, REPLAYED);
      // The replay wakes the worker: its first claim sends at once (on stale statistics: nothing, ever).
      await r.waitFor('/held', 1, 4000);
    } finally {
      stop();
    }
    const claim = claims[0];
    assert.ok(claim, 'the worker claimed after the replay');
    for (const plan of ['custom', 'generic'] as const) {
      const read = scansOf('webhook_deliveries', await explainGenericPlan(t.server.db, claim, plan))
        .map(rowsRead)
        .reduce((sum, rows) => sum + rows, 0);
      // A claim takes at most 8 here (WEBHOOK_ENDPOINT_CONCURRENCY): its candidates and a line probe
      // each, where reading the backlog is 20,000 or more (and a scan of it per line check, 200 million).
      assert.ok(read <= 100, `the ${plan} plan of the claim read ${read} delivery rows`);
    }
  });

  it('has the deliveries analyzed after every thousand changed rows, so a backlog the fan-out built is planned as one too', async () => {
    const { rows } = await sql<{ reloptions: string[] | null }>`
      select reloptions from pg_class where oid = 'webhook_deliveries'::regclass`.execute(t.server.db);
    assert.deepEqual([...(rows[0]?.reloptions ?? [])].sort(), [
      'autovacuum_analyze_scale_factor=0',
      'autovacuum_analyze_threshold=1000',
    ]);
  });
});
