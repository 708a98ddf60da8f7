import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  commentUntilCutOff,
  newComment,
  newPost,
  sample,
  scrape,
  rawSocket,
  subscribeSse,
  subscribeWs,
  subscriptionsLive,
  until,
  within,
  wsClient,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { MAX_QUEUED_EVENTS } from './live-operation.ts';

const COMMENTS = 'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text } }';

const ws = 'transport="websocket"';
const sse = 'transport="sse"';

for (const dialect of DIALECTS) {
  describe(`GraphQL subscriptions in /metrics (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    it('shows connections and subscriptions by transport, payloads delivered and the feed lag, moving with them', async () => {
      const author = await t.createUser();
      const postId = await newPost(t, author.token, author.id);
      const before = await scrape(t);
      for (const transport of [ws, sse]) {
        assert.equal(sample(before, 'graphql_live_connections', transport), 0, `no connection yet (${transport})`);
        assert.equal(sample(before, 'graphql_subscriptions_active', transport), 0);
      }
      const deliveredBefore = (transport: string) =>
        sample(before, 'graphql_subscription_events_delivered_total', transport);
      const lagCountBefore = sample(before, 'graphql_subscription_feed_lag_seconds_count');

      const client = wsClient(t, author.token);
      const overWs = subscribeWs(client, COMMENTS, { postId: String(postId) });
      const overSse = subscribeSse(t, author.token, COMMENTS, { postId: String(postId) });
      try {
        await subscriptionsLive(t, 2);
        const live = await scrape(t);
        for (const transport of [ws, sse]) {
          assert.equal(sample(live, 'graphql_live_connections', transport), 1, transport);
          assert.equal(sample(live, 'graphql_subscriptions_active', transport), 1, transport);
        }
        await newComment(t, author.token, postId, 'counted');
        await newComment(t, author.token, postId, 'counted too');
        await until(() => overWs.results.length === 2 && overSse.results.length === 2, 'two comments on each');
        const delivered = await scrape(t);
        for (const transport of [ws, sse])
          assert.equal(
            sample(delivered, 'graphql_subscription_events_delivered_total', transport) - deliveredBefore(transport),
            2,
            transport,
          );
        // Once per event read (not per subscriber): the two comments at least.
        const lagCount = sample(delivered, 'graphql_subscription_feed_lag_seconds_count') - lagCountBefore;
        assert.ok(lagCount >= 2 && lagCount < 6, `${lagCount} events in the feed lag`);
        assert.ok(sample(delivered, 'graphql_subscription_feed_lag_seconds_bucket', 'le="10"') >= 2);
      } finally {
        overSse.stop();
        overSse.client.dispose();
        await client.dispose();
      }
      await subscriptionsLive(t, 0);
      await until(() => t.server.app.live.sockets === 0, 'the socket closed');
      const after = await scrape(t);
      for (const transport of [ws, sse]) {
        assert.equal(sample(after, 'graphql_live_connections', transport), 0, `closed (${transport})`);
        assert.equal(sample(after, 'graphql_subscriptions_active', transport), 0, `ended (${transport})`);
      }
    });

    it(`closes a WebSocket that stops reading with 1008 once ${MAX_QUEUED_EVENTS} events wait, and counts it as cut off once`, async () => {
      const author = await t.createUser();
      // Each payload carries the post's 100,000 characters: the socket's buffers fill after a few dozen.
      const postId = await newPost(t, author.token, author.id, 'Live', 'x'.repeat(100_000));
      const big = 'subscription B($postId: ID!) { commentAdded(postId: $postId) { id post { content } } }';
      const cutOffBefore = sample(await scrape(t), 'graphql_subscription_cutoffs_total', ws);
      const raw = rawSocket(t);
      await raw.opened;
      raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${author.token}` } });
      await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
      raw.send({ type: 'subscribe', id: 'a', payload: { query: big, variables: { postId: String(postId) } } });
      await subscriptionsLive(t, 1);
      // A client that reads is not cut off.
      for (let n = 0; n < 20; n += 1) await newComment(t, author.token, postId, `read ${n}`);
      await until(() => raw.messages.filter((m) => m.type === 'next').length === 20, 'twenty payloads read');
      raw.socket.pause();
      assert.equal(await commentUntilCutOff(t, author.token, postId, ws), 1, 'cut off once');
      // The subscription was dropped at once, not when the socket's close completes.
      await subscriptionsLive(t, 0);
      raw.socket.resume();
      assert.equal((await within(raw.closed, 'the close', 30_000)).code, 1008);
      assert.equal(sample(await scrape(t), 'graphql_subscription_cutoffs_total', ws) - cutOffBefore, 1);
    });
  });
}
