import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { claimDueDeliveries, type ClaimRequest } from './delivery-claims.repository.ts';

/**
 * The claim's candidates statement is compiled once per number of full endpoints (deliveries.statements.ts):
 * every claim must still use its own `now`, full endpoints and limit.
 */
const AT = (minutes: number) => new Date(Date.UTC(2026, 10, 26, 10, minutes)).toISOString();

for (const dialect of DIALECTS) {
  describe(`webhook delivery claim candidates (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const endpoints: number[] = [];
    before(async () => {
      // The delivery worker polls once a minute: the rows below stay unclaimed for the tests' claims.
      t = await startTestServer(dialect, { REPORT_WORKER: 'false', WEBHOOK_DELIVERY_POLL_MS: '60000' });
      const db = t.server.db;
      for (const port of [9, 10]) {
        const { id } = await db
          .insertInto('webhook_endpoints')
          .values({
            url: `http://127.0.0.1:${port}/`,
            events: '["*"]',
            status: 'enabled',
            secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
            created_at: AT(0),
            updated_at: AT(0),
          } as never)
          .returning('id')
          .executeTakeFirstOrThrow();
        endpoints.push(Number(id));
      }
      // Endpoint 0: three deliveries due at 10:01-10:03; endpoint 1: one due at 10:05. Each its own resource.
      const due = [
        [0, 1],
        [0, 2],
        [0, 3],
        [1, 5],
      ] as const;
      await db
        .insertInto('webhook_deliveries')
        .values(
          due.map(([endpoint, minute]) => ({
            endpoint_id: endpoints[endpoint]!,
            event_tx: 1,
            event_seq: minute,
            event_id: `evt_claim_${minute}`,
            event_type: 'product.created',
            resource: `product:${minute}`,
            payload: '{}',
            status: 'pending' as const,
            attempts: 0,
            next_attempt_at: AT(minute),
            created_at: AT(0),
          })),
        )
        .execute();
    });
    after(() => t?.close());

    const claim = async (now: number, room: [number, number][], limit = 1): Promise<string[]> => {
      const request: ClaimRequest = {
        holder: `claim-test-${now}-${room.length}`,
        now: AT(now),
        leaseUntil: AT(now),
        limit,
        room: new Map(room.map(([endpoint, left]) => [endpoints[endpoint]!, left])),
        perEndpoint: limit,
      };
      return (await claimDueDeliveries(t.server.db, request)).map(({ row }) => row.event_id).sort();
    };

    it("takes each claim's own time: nothing is due before 10:01", async () => {
      assert.deepEqual(await claim(0, []), []);
      assert.deepEqual(await claim(0, [[0, 0]]), []);
    });

    it('passes over the endpoints that are full to reach the others, whatever their number', async () => {
      // Endpoint 0 is full: its three older deliveries are not candidates, endpoint 1's is claimed.
      assert.deepEqual(await claim(10, [[0, 0]]), ['evt_claim_5']);
      // Both full: nothing. Neither full: endpoint 0's oldest (its lease ran out at once: claimed_until = now).
      assert.deepEqual(
        await claim(10, [
          [0, 0],
          [1, 0],
        ]),
        [],
      );
      assert.deepEqual(await claim(11, [], 2), ['evt_claim_1', 'evt_claim_2']);
    });
  });
}
