import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config/config.ts';
import { startServer, type RunningServer } from '../../server.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  newPost,
  secondInstanceEnv,
  subscribeSse,
  subscribeWs,
  until,
  wsClient,
  type Received,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §11: "a subscriber receives each matching event exactly once, in feed order, whichever instance
 * made the change". Comments are written concurrently (so the feed's order is not the order the requests were
 * sent in), through both instances on PostgreSQL (one on SQLite), and every subscriber of every instance,
 * over WebSocket (graphql-ws client) and SSE (graphql-sse client), must hold exactly the feed's sequence.
 */

const COMMENTS = 'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text } }';
const ROUNDS = 4;
const PER_ROUND = 10;

/** The ids of the post's comment.created events, in the feed's order (the admin's event feed). */
async function feedOrder(t: TestServer, postId: number): Promise<string[]> {
  const res = await t.request('GET', '/api/events?types=comment.created&limit=1000', { token: t.adminToken });
  assert.equal(res.status, 200, res.text);
  const events = (res.body as { data: { data: { id: number; postId: number } }[] }).data;
  return events.filter((e) => e.data.postId === postId).map((e) => String(e.data.id));
}

for (const dialect of DIALECTS) {
  describe(
    `GraphQL subscriptions follow the feed under concurrent writes (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let second: RunningServer | undefined;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
        // Two instances share PostgreSQL; SQLite is for one machine (one instance).
        if (dialect.name === 'postgres') second = await startServer(loadConfig(secondInstanceEnv(t)));
      });
      after(async () => {
        await second?.close();
        await t?.close();
      });

      it('hands every comment, written concurrently through every instance, to every subscriber of every instance once, in feed order (WebSocket and SSE)', async () => {
        const instances = [
          { url: t.url, app: t.server.app },
          ...(second ? [{ url: second.url, app: second.app }] : []),
        ];
        const author = await t.createUser();
        const postId = await newPost(t, author.token, author.id, 'Busy');
        const subscribers: { what: string; received: Received; stop(): Promise<void> | void }[] = [];
        for (const [n, instance] of instances.entries()) {
          const client = wsClient(instance, author.token);
          const overWs = subscribeWs(client, COMMENTS, { postId: String(postId) });
          subscribers.push({ what: `WebSocket on instance ${n}`, received: overWs, stop: () => client.dispose() });
          const overSse = subscribeSse(instance, author.token, COMMENTS, { postId: String(postId) });
          subscribers.push({
            what: `SSE on instance ${n}`,
            received: overSse,
            stop: () => (overSse.stop(), overSse.client.dispose()),
          });
        }
        try {
          await until(() => instances.every(({ app }) => app.live.subscriptions === 2), 'the subscriptions live');
          const total = ROUNDS * PER_ROUND;
          for (let round = 0; round < ROUNDS; round += 1) {
            await Promise.all(
              Array.from({ length: PER_ROUND }, async (_, i) => {
                const through = instances[(round * PER_ROUND + i) % instances.length]!;
                const res = await fetch(`${through.url}/api/posts/${postId}/comments`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ text: `comment ${round}.${i}` }),
                });
                assert.equal(res.status, 201, await res.text());
              }),
            );
          }
          try {
            await until(
              () => subscribers.every(({ received }) => received.results.length >= total),
              `${total} comments on every subscriber`,
              30_000,
            );
          } catch (error) {
            // Which comments each subscriber lacks, and whether the feed has them: a skipped event against
            // one that is late.
            const feed = await feedOrder(t, postId);
            const missing = subscribers.map(({ what, received }) => {
              const got = new Set(received.results.map((r) => (r.data!.commentAdded as { id: string }).id));
              return `${what}: ${got.size} (lacks ${feed.filter((id) => !got.has(id)).join(' ') || 'none of the feed'})`;
            });
            throw new Error(`${(error as Error).message}; feed ${feed.length}: ${missing.join('; ')}`, {
              cause: error,
            });
          }
          await new Promise((resolve) => setTimeout(resolve, 500)); // nothing more comes
          const feed = await feedOrder(t, postId);
          assert.equal(feed.length, total);
          for (const { what, received } of subscribers) {
            const ids = received.results.map((r) => (r.data!.commentAdded as { id: string }).id);
            assert.deepEqual(ids, feed, `${what}: every comment once, in the feed's order`);
          }
        } finally {
          for (const { stop } of subscribers) await stop();
        }
      });
    },
  );
}
