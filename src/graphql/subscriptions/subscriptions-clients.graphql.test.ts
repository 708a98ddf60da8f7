import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NetworkError } from 'graphql-sse';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  newComment,
  newPost,
  subscribeSse,
  subscribeWs,
  subscriptionsLive,
  until,
  within,
  wsClient,
  wsClientWithUpgradeHeader,
  type Received,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §11 through both client libraries (`graphql-ws`, `graphql-sse`): e-mail privacy per subscriber on
 * every payload and both transports, the document limits on SSE, and the token's ways in and refusals.
 */

const USER = 'subscription U($id: ID!) { userUpdated(id: $id) { id name email } }';
const POSTS = 'subscription P($authorId: ID) { postCreated(authorId: $authorId) { title author { id email } } }';
const COMMENTS =
  'subscription C($postId: ID!) { commentAdded(postId: $postId) { text author { email } post { author { email } } } }';

/** Every `email` value in a payload, wherever it is nested. */
function emailsIn(value: unknown): unknown[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === 'email' ? [inner] : emailsIn(inner)));
}

/** What the graphql-sse client's NetworkError carries: the refused answer's status and body. */
async function refusedAnswer(error: unknown): Promise<{ status: number; codes: unknown[]; guards: unknown[] }> {
  const response = (error as NetworkError<Response>).response;
  assert.ok(response, `a refused answer, not ${String(error)}`);
  const body = (await response.json()) as { errors: { extensions?: { code?: string; guard?: string } }[] };
  return {
    status: response.status,
    codes: body.errors.map((e) => e.extensions?.code),
    guards: body.errors.map((e) => e.extensions?.guard),
  };
}

for (const dialect of DIALECTS) {
  describe(
    `GraphQL subscriptions: privacy, limits and tokens through both client libraries (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      });
      after(() => t?.close());

      it("resolves every e-mail of every payload for its own subscriber (the user and an admin see it, another user gets ''), over WebSocket and SSE", async () => {
        const target = await t.createUser({ name: 'Target' });
        const other = await t.createUser();
        const postId = await newPost(t, target.token, target.id, 'Commented');
        // On PostgreSQL the post made before subscribing may still arrive while another transaction of the cluster
        // is open (the reader starts at the no-skip head): only the payloads of the changes made below count.
        const ofThisTest = (r: { data?: Record<string, unknown> | null }) =>
          (r.data?.postCreated as { title?: string } | undefined)?.title !== 'Commented';
        const viewers = { self: target.token, other: other.token, admin: t.adminToken };
        const documents: [string, string, Record<string, string>][] = [
          ['userUpdated', USER, { id: String(target.id) }],
          ['postCreated', POSTS, { authorId: String(target.id) }],
          ['commentAdded', COMMENTS, { postId: String(postId) }],
        ];
        const clients = Object.values(viewers).map((token) => wsClient(t, token));
        const live: { what: string; viewer: string; received: Received; dispose(): void }[] = [];
        Object.entries(viewers).forEach(([viewer, token], n) => {
          for (const [field, query, variables] of documents) {
            live.push({
              what: `${field} over WebSocket for ${viewer}`,
              viewer,
              received: subscribeWs(clients[n]!, query, variables),
              dispose: () => {},
            });
            const sse = subscribeSse(t, token, query, variables);
            live.push({
              what: `${field} over SSE for ${viewer}`,
              viewer,
              received: sse,
              dispose: () => (sse.stop(), sse.client.dispose()),
            });
          }
        });
        try {
          await subscriptionsLive(t, live.length);
          const renamed = await t.request('PATCH', `/api/users/${target.id}`, {
            token: target.token,
            body: { name: 'Target Renamed' },
          });
          assert.equal(renamed.status, 200, renamed.text);
          await newPost(t, target.token, target.id, 'New');
          await newComment(t, target.token, postId, 'Hello');
          await until(() => live.every(({ received }) => received.results.some(ofThisTest)), 'a payload on each');
          await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more comes
          for (const { what, viewer, received } of live) {
            const results = received.results.filter(ofThisTest);
            assert.equal(results.length, 1, `${what}: ${JSON.stringify(received.results)}`);
            const [result] = results;
            assert.equal(result!.errors, undefined, what);
            const emails = emailsIn(result!.data);
            assert.ok(emails.length >= 1, what);
            const expected = viewer === 'other' ? '' : target.user.email;
            assert.deepEqual(
              emails,
              emails.map(() => expected),
              what,
            );
          }
        } finally {
          for (const { dispose } of live) dispose();
          await Promise.all(clients.map((client) => client.dispose()));
        }
        await subscriptionsLive(t, 0);
      });

      it('refuses an SSE subscription over the depth or cost limit, or invalid, with a 400 before anything is registered', async () => {
        const { token } = await t.createUser();
        const refusals = {
          depth:
            'subscription { commentAdded(postId: "1") { post { author { posts { comments { post { author { posts { comments { post { author { id } } } } } } } } } } } }',
          cost: 'subscription { postCreated { author { posts(limit: 100) { comments(limit: 100) { post { comments(limit: 100) { id } } } } } } }',
          invalid: 'subscription { nothing }',
        };
        for (const [what, query] of Object.entries(refusals)) {
          const sse = subscribeSse(t, token, query);
          const answer = await refusedAnswer(await within(sse.ended, `the refusal (${what})`));
          sse.client.dispose();
          assert.equal(answer.status, 400, what);
          assert.deepEqual(answer.codes, ['GRAPHQL_VALIDATION_FAILED'], what);
          if (what !== 'invalid') assert.deepEqual(answer.guards, [what]);
          assert.equal(t.server.app.live.subscriptions, 0, what);
        }
      });

      it("takes the graphql-ws client's token from the upgrade request's Authorization header, as the connection's viewer", async () => {
        const me = await t.createUser();
        const client = wsClientWithUpgradeHeader(t, me.token);
        try {
          const mine = subscribeWs(client, USER, { id: String(me.id) });
          await subscriptionsLive(t, 1);
          const renamed = await t.request('PATCH', `/api/users/${me.id}`, {
            token: me.token,
            body: { name: 'Header' },
          });
          assert.equal(renamed.status, 200, renamed.text);
          await until(() => mine.results.length === 1, 'the change');
          assert.deepEqual(mine.results[0], {
            data: { userUpdated: { id: String(me.id), name: 'Header', email: me.user.email } },
          });
        } finally {
          await client.dispose();
        }
        await subscriptionsLive(t, 0);
      });

      it('refuses no token, a bad one and the token of a suspended or deleted user: 4401 (graphql-ws, in connection_init or the upgrade header), 401 (graphql-sse)', async () => {
        const suspended = await t.createUser({ status: 'suspended' });
        const deleted = await t.createUser();
        const removed = await t.request('DELETE', `/api/users/${deleted.id}`, { token: t.adminToken });
        assert.equal(removed.status, 204, removed.text);
        const tokens = { none: undefined, bad: 'not-a-token', suspended: suspended.token, deleted: deleted.token };
        for (const [what, token] of Object.entries(tokens)) {
          const ways = [(onClose: (e: unknown) => void) => wsClient(t, token, onClose)];
          if (token !== undefined) ways.push((onClose) => wsClientWithUpgradeHeader(t, token, onClose));
          for (const [way, connect] of ways.entries()) {
            let code: number | undefined;
            const client = connect((event) => (code ??= (event as { code: number }).code));
            const live = subscribeWs(client, USER, { id: '1' });
            await within(live.ended, `the close (${what}, way ${way})`);
            assert.equal(code, 4401, `${what}, way ${way}`);
            assert.deepEqual(live.results, []);
            await client.dispose();
          }
          const sse = subscribeSse(t, token, USER, { id: '1' });
          const answer = await refusedAnswer(await within(sse.ended, `the SSE refusal (${what})`));
          sse.client.dispose();
          assert.equal(answer.status, 401, what);
          assert.deepEqual(answer.codes, ['UNAUTHENTICATED'], what);
        }
        assert.equal(t.server.app.live.subscriptions, 0);
      });
    },
  );
}
