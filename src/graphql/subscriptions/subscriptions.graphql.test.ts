import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  newComment,
  newPost as livePost,
  shortLivedToken,
  subscribeSse,
  subscribeWs,
  subscriptionsLive,
  until,
  within,
  wsClient,
} from '../../../test/support/live-clients.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const COMMENTS =
  'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text author { id name email } post { id title } } }';
const POSTS = 'subscription P($authorId: ID) { postCreated(authorId: $authorId) { id title author { id email } } }';
const USER = 'subscription U($id: ID!) { userUpdated(id: $id) { id name email } }';

for (const dialect of DIALECTS) {
  describe(
    `GraphQL subscriptions with the graphql-ws and graphql-sse clients (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, { ...GRAPHQL_TEST_ENV, GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION: '3' });
      });
      after(() => t?.close());

      const newPost = (token: string, authorId: number, title?: string) => livePost(t, token, authorId, title);
      const comment = (token: string, postId: number, text: string) => newComment(t, token, postId, text);

      it("delivers each new comment of a post once, in order, over WebSocket, with the author's e-mail per subscriber", async () => {
        const author = await t.createUser({ name: 'Comment Author' });
        const reader = await t.createUser();
        const postId = await newPost(author.token, author.id, 'Watched');
        const otherPost = await newPost(author.token, author.id, 'Not watched');
        const asAuthor = wsClient(t, author.token);
        const asReader = wsClient(t, reader.token);
        try {
          const own = subscribeWs(asAuthor, COMMENTS, { postId: String(postId) });
          const other = subscribeWs(asReader, COMMENTS, { postId: String(postId) });
          await subscriptionsLive(t, 2);
          for (const text of ['one', 'two', 'three']) await comment(author.token, postId, text);
          await comment(author.token, otherPost, 'elsewhere');
          await until(() => own.results.length >= 3 && other.results.length >= 3, 'three comments each');
          await new Promise((resolve) => setTimeout(resolve, 300)); // nothing more comes
          assert.deepEqual(
            own.results.map((r) => (r.data!.commentAdded as { text: string }).text),
            ['one', 'two', 'three'],
          );
          assert.equal(other.results.length, 3);
          const seenByAuthor = own.results[0]!.data!.commentAdded as {
            author: { email: string };
            post: { title: string };
          };
          const seenByReader = other.results[0]!.data!.commentAdded as { author: { email: string; name: string } };
          assert.equal(seenByAuthor.author.email, author.user.email, 'the author sees their own e-mail');
          assert.equal(seenByAuthor.post.title, 'Watched');
          assert.equal(seenByReader.author.email, '', "another user's e-mail stays private");
          assert.equal(seenByReader.author.name, 'Comment Author');
        } finally {
          await asAuthor.dispose();
          await asReader.dispose();
        }
        await subscriptionsLive(t, 0);
      });

      it('delivers new posts, of one author when given, and changes to one user (e-mail private) over WebSocket', async () => {
        const watched = await t.createUser();
        const unwatched = await t.createUser();
        const reader = await t.createUser();
        const client = wsClient(t, reader.token);
        try {
          const ofOne = subscribeWs(client, POSTS, { authorId: String(watched.id) });
          const ofAll = subscribeWs(client, POSTS, {});
          const changes = subscribeWs(client, USER, { id: String(watched.id) });
          await subscriptionsLive(t, 3);
          await newPost(unwatched.token, unwatched.id, 'Unwatched');
          await newPost(watched.token, watched.id, 'Watched');
          const patched = await t.request('PATCH', `/api/users/${watched.id}`, {
            token: watched.token,
            body: { name: 'Renamed' },
          });
          assert.equal(patched.status, 200, patched.text);
          await until(
            () => ofAll.results.length >= 2 && ofOne.results.length >= 1 && changes.results.length >= 1,
            'posts and the change',
          );
          await new Promise((resolve) => setTimeout(resolve, 300));
          assert.deepEqual(
            ofOne.results.map((r) => (r.data!.postCreated as { title: string }).title),
            ['Watched'],
          );
          assert.deepEqual(
            ofAll.results.map((r) => (r.data!.postCreated as { title: string }).title),
            ['Unwatched', 'Watched'],
          );
          assert.deepEqual(changes.results, [
            { data: { userUpdated: { id: String(watched.id), name: 'Renamed', email: '' } } },
          ]);
        } finally {
          await client.dispose();
        }
      });

      it('delivers over Server-Sent Events (distinct connections) with the token in Authorization, and 401 without one', async () => {
        const author = await t.createUser();
        const postId = await newPost(author.token, author.id);
        const live = subscribeSse(t, author.token, COMMENTS, { postId: String(postId) });
        try {
          await subscriptionsLive(t, 1);
          await comment(author.token, postId, 'over SSE');
          await until(() => live.results.length === 1, 'the comment over SSE');
          const received = live.results[0]!.data!.commentAdded as { text: string; author: { email: string } };
          assert.equal(received.text, 'over SSE');
          assert.equal(received.author.email, author.user.email);
        } finally {
          live.stop();
          live.client.dispose();
        }
        await subscriptionsLive(t, 0);
        for (const authorization of [undefined, 'Bearer not-a-token']) {
          const res = await fetch(`${t.url}/graphql`, {
            method: 'POST',
            headers: {
              accept: 'text/event-stream',
              'content-type': 'application/json',
              ...(authorization ? { authorization } : {}),
            },
            body: JSON.stringify({ query: COMMENTS, variables: { postId: String(postId) } }),
          });
          assert.equal(res.status, 401);
          await res.body?.cancel();
        }
      });

      it('closes a socket without a valid token with 4401', async () => {
        for (const token of [undefined, 'not-a-token']) {
          let closeCode: number | undefined;
          const client = wsClient(t, token, (event) => (closeCode = (event as { code: number }).code));
          const live = subscribeWs(client, USER, { id: '1' });
          await within(live.ended, 'the close');
          assert.equal(closeCode, 4401);
          await client.dispose();
        }
      });

      it('refuses subscription documents over the depth or cost limit, and invalid ones, with errors before anything runs', async () => {
        const { token } = await t.createUser();
        const client = wsClient(t, token);
        try {
          const deep = subscribeWs(
            client,
            'subscription { commentAdded(postId: "1") { post { author { posts { comments { post { author { posts { comments { post { author { id } } } } } } } } } } } }',
          );
          const costly = subscribeWs(
            client,
            'subscription { postCreated { author { posts(limit: 100) { comments(limit: 100) { post { comments(limit: 100) { id } } } } } } }',
          );
          const invalid = subscribeWs(client, 'subscription { nothing }');
          const [deepError, costError, invalidError] = (await within(
            Promise.all([deep.ended, costly.ended, invalid.ended]),
            'the refusals',
          )) as {
            extensions?: { guard?: string; code?: string };
          }[][];
          assert.equal(deepError![0]!.extensions?.guard, 'depth');
          assert.equal(costError![0]!.extensions?.guard, 'cost');
          assert.equal(invalidError![0]!.extensions?.code, 'GRAPHQL_VALIDATION_FAILED');
          assert.equal(t.server.app.live.subscriptions, 0);
        } finally {
          await client.dispose();
        }
      });

      it('allows GRAPHQL_MAX_SUBSCRIPTIONS_PER_CONNECTION subscriptions at once on a connection, and one more once one ends', async () => {
        const { token } = await t.createUser();
        const client = wsClient(t, token);
        try {
          const open = [1, 2, 3].map(() => subscribeWs(client, USER, { id: '1' }));
          await subscriptionsLive(t, 3);
          const refused = subscribeWs(client, USER, { id: '1' });
          const errors = (await within(refused.ended, 'the refusal')) as { message: string }[];
          assert.match(errors[0]!.message, /At most 3 subscriptions/);
          open[0]!.stop();
          await subscriptionsLive(t, 2);
          subscribeWs(client, USER, { id: '1' });
          await subscriptionsLive(t, 3);
        } finally {
          await client.dispose();
        }
        await subscriptionsLive(t, 0);
      });

      it("ends a subscription within 5 s of its token's exp and sends nothing after it (WebSocket 4401, SSE an UNAUTHENTICATED error)", async () => {
        const author = await t.createUser();
        const postId = await newPost(author.token, author.id);
        const quietPostId = await newPost(author.token, author.id);
        // Six seconds: room for three subscriptions and a comment before exp on a loaded machine (2 s was not).
        const token = await shortLivedToken(t, author.id, 6);
        // The token's own exp (what the server goes by), not one computed here a moment later.
        const expiresAt =
          (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;
        const deadline = expiresAt + 5_000;
        let closed: { code: number; at: number } | undefined;
        const client = wsClient(
          t,
          token,
          (event) => (closed = { code: (event as { code: number }).code, at: Date.now() }),
        );
        const overWs = subscribeWs(client, COMMENTS, { postId: String(postId) });
        // Two SSE streams: one gets a comment right after exp (it must not arrive), the other nothing at all
        // (its end comes from the expiry alone, not from an event that finds the token expired).
        const overSse = subscribeSse(t, token, COMMENTS, { postId: String(postId) });
        const quietSse = subscribeSse(t, token, COMMENTS, { postId: String(quietPostId) });
        const sseEnds = Object.entries({ commented: overSse, quiet: quietSse }).map(([name, sse]) => {
          const end: { at?: number } = {};
          return { name, sse, end, ended: sse.ended.then(() => void (end.at = Date.now())) };
        });
        await subscriptionsLive(t, 3);
        await comment(author.token, postId, 'before exp');
        await until(() => overWs.results.length === 1 && overSse.results.length === 1, 'the comment before exp', 4_000);
        await until(() => closed !== undefined, 'the close at exp', deadline - Date.now());
        assert.equal(closed!.code, 4401);
        assert.ok(closed!.at <= deadline);
        await until(() => Date.now() > expiresAt, 'exp'); // the comment below is after exp, whatever the timers did
        await comment(author.token, postId, 'after exp');
        // A second past the allowed end: a late end is measured (and reported) rather than timed out.
        await within(
          Promise.all(sseEnds.map(({ ended }) => ended)),
          'the SSE ends',
          deadline + 1_000 - Date.now(),
        ).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 300));
        const texts = (sse: typeof overSse) =>
          sse.results.filter((r) => r.data).map((r) => (r.data!.commentAdded as { text: string }).text);
        assert.deepEqual(texts(overSse), ['before exp'], 'nothing over SSE after exp');
        assert.deepEqual(texts(quietSse), []);
        for (const { name, sse, end } of sseEnds) {
          const late = `${end.at === undefined ? 'still open' : 'ended'} ${(end.at ?? Date.now()) - expiresAt} ms after exp`;
          assert.ok(end.at !== undefined && end.at <= deadline, `the ${name} SSE stream ${late} (at most 5000)`);
          assert.equal(sse.results.at(-1)?.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
        }
        assert.equal(overWs.results.length, 1);
        overSse.client.dispose();
        quietSse.client.dispose();
        await client.dispose();
      });

      it('runs queries and mutations over WebSocket with the same rules as over HTTP', async () => {
        const me = await t.createUser({ name: 'Socket User' });
        const other = await t.createUser();
        const client = wsClient(t, me.token);
        const once = async (query: string, variables?: Record<string, unknown>) => {
          const live = subscribeWs(client, query, variables);
          const ended = await within(live.ended, 'the answer');
          return { results: live.results, ended };
        };
        try {
          const read = await once('query Q($id: ID!) { user(id: $id) { name email } }', { id: String(other.id) });
          assert.deepEqual(read.results, [{ data: { user: { name: other.user.name, email: '' } } }]);
          const forbidden = await once('mutation M($id: ID!) { updateUser(id: $id, input: { name: "x" }) { id } }', {
            id: String(other.id),
          });
          assert.equal(forbidden.results[0]!.errors![0]!.extensions!.code, 'FORBIDDEN');
          const bad = await once('query Q($id: ID!) { user(id: $id) { name } }', { id: {} });
          assert.equal((bad.ended as { extensions: { code: string } }[])[0]!.extensions.code, 'BAD_USER_INPUT');
        } finally {
          await client.dispose();
        }
      });
    },
  );
}
