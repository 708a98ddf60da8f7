import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  newComment,
  newPost,
  subscribeWs,
  subscriptionsLive,
  until,
  wsClient,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const COMMENTS = 'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text } }';
/** Far longer than the test: only the commit's wake can deliver a comment in time. */
const POLL_MS = 600_000;
/** A receipt this soon after the answer cannot be the poll's. */
const WITHIN_MS = 5_000;

for (const dialect of DIALECTS) {
  describe(
    `GraphQL subscriptions: a commit of the process wakes the feed reader (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, GRAPHQL_SUBSCRIPTION_POLL_MS: String(POLL_MS) });
      });
      after(() => t?.close());

      it('delivers a change made through this process at once, not at the next poll', async () => {
        const author = await t.createUser();
        const postId = await newPost(t, author.token, author.id);
        const client = wsClient(t, author.token);
        try {
          const live = subscribeWs(client, COMMENTS, { postId: String(postId) });
          await subscriptionsLive(t, 1);
          // The reader's first read (when the subscriber arrived) is over: it now sleeps for POLL_MS.
          await new Promise((resolve) => setTimeout(resolve, 300));
          for (const text of ['first', 'second']) {
            await newComment(t, author.token, postId, text);
            await until(
              () => live.results.some((r) => (r.data?.commentAdded as { text: string } | undefined)?.text === text),
              `the comment "${text}" before the poll`,
              WITHIN_MS,
            );
          }
          assert.deepEqual(
            live.results.map((r) => (r.data!.commentAdded as { text: string }).text),
            ['first', 'second'],
          );
        } finally {
          await client.dispose();
        }
      });
    },
  );
}
