import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import {
  addProduct,
  createEndpoint,
  deleteEndpoint,
  deliveriesOf,
  eventually,
  FAST_WEBHOOKS,
} from '../../../test/support/webhooks.ts';

/**
 * What the background work costs (the bench journal (git show b3694ab:bench/journal/2026-11.md), session 13): the fan-out claims the deliveries it
 * makes for its own process's worker (no claim transaction between an event and its request) and
 * records the successes answered since the last one in the same commit; on SQLite the consumers' own
 * commits do not wait for the disk, while every request's commit still does.
 */
for (const dialect of DIALECTS) {
  describe(`webhooks: the background work's cost (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let r: WebhookReceiver;
    before(async () => {
      r = await startWebhookReceiver();
      // Room for every delivery of a test in the worker (FAST_WEBHOOKS' 2 per endpoint would leave some
      // of a step to a claim, as it should).
      t = await startTestServer(dialect, { ...FAST_WEBHOOKS, WEBHOOK_ENDPOINT_CONCURRENCY: '8' });
    });
    after(async () => {
      await t?.close();
      await r?.close();
    });

    it('sends what the fan-out claimed for its worker, with no claim of its own, and records each success', async () => {
      const endpoint = await createEndpoint(t, `${r.url}/claimed`);
      const claims: string[] = [];
      const stop = observeQueries(t.server.db, (text) => {
        if (/^update "webhook_deliveries" set "claimed_by"/.test(text)) claims.push(text);
      });
      try {
        for (let i = 0; i < 5; i += 1) await addProduct(t, `claimed ${i}`);
        const requests = await r.waitFor('/claimed', 5);
        assert.equal(new Set(requests.map((item) => item.event.id)).size, 5, 'each event once');
        await eventually('recorded', async () => {
          const list = await deliveriesOf(t, endpoint.id, '&status=succeeded');
          return list.length === 5 ? list : undefined;
        });
      } finally {
        stop();
      }
      assert.deepEqual(claims, [], 'no claim statement: the fan-out inserted them claimed');
      await deleteEndpoint(t, endpoint.id);
    });

    it(
      'commits the consumers’ writes on SQLite without waiting for the disk, and no request’s',
      {
        skip: dialect.name !== 'sqlite' && 'a setting of the SQLite connection',
      },
      async () => {
        const endpoint = await createEndpoint(t, `${r.url}/normal`);
        const statements: string[] = [];
        const stop = observeQueries(t.server.db, (text) => statements.push(text.trim().toLowerCase()));
        try {
          // Writes arriving all along, so that some wait for the connection while the fan-out writes.
          let next = 0;
          const writer = async () => {
            while (next < 150) await addProduct(t, `normal ${(next += 1)}`);
          };
          await Promise.all(Array.from({ length: 12 }, writer));
          await r.waitFor('/normal', 150, 20_000);
        } finally {
          stop();
        }
        // Between each switch to NORMAL and the switch back: one background write, no request's statement.
        let normal = false;
        let background = 0;
        for (const text of statements) {
          if (text === 'pragma synchronous = 1') {
            assert.equal(normal, false);
            normal = true;
            background += 1;
          } else if (text.startsWith('pragma synchronous = ')) {
            assert.equal(text, 'pragma synchronous = 2', 'back to FULL');
            normal = false;
          } else if (normal) assert.ok(!text.startsWith('insert into "products"'), `a request's ${text} ran at NORMAL`);
        }
        assert.ok(background >= 1, 'the fan-out and the NATS-less consumers committed at NORMAL');
        assert.equal(normal, false);
        const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(t.server.db);
        assert.equal(Number(rows[0]!.synchronous), 2, 'the connection is at FULL for requests');
        await deleteEndpoint(t, endpoint.id);
      },
    );
  });

  describe(`webhooks: a service without endpoints (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, FAST_WEBHOOKS);
    });
    after(() => t?.close());

    it('moves the fan-out past the events unread while there is no endpoint', async () => {
      const atLastEvent = async () => {
        const last = await t.server.db
          .selectFrom('events')
          .select(['tx', 'seq'])
          .orderBy('tx', 'desc')
          .orderBy('seq', 'desc')
          .executeTakeFirstOrThrow();
        await eventually('the fan-out at the last event', async () => {
          const at = await t.server.db
            .selectFrom('event_consumers')
            .select(['tx', 'seq'])
            .where('consumer', '=', 'webhooks')
            .executeTakeFirstOrThrow();
          return Number(at.tx) === Number(last.tx) && Number(at.seq) === Number(last.seq) ? at : undefined;
        });
      };
      const feedReads: string[] = [];
      const stop = observeQueries(t.server.db, (text) => {
        if (/^select \* from "events"/.test(text)) feedReads.push(text);
      });
      try {
        for (let i = 0; i < 20; i += 1) await addProduct(t, `unread ${i}`);
        await atLastEvent();
      } finally {
        stop();
      }
      assert.deepEqual(feedReads, [], 'no event read by the fan-out');
    });
  });
}
