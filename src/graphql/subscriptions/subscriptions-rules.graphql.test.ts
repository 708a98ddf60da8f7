import assert from 'node:assert/strict';
import { get, request, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../config/config.ts';
import { CLOCK_TOLERANCE_SECONDS } from '../../core/access/tokens.ts';
import { startServer } from '../../server.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  newPost,
  rawSocket,
  secondInstanceEnv,
  shortLivedToken,
  subscribeSse,
  subscriptionsLive,
  until,
  within,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const COMMENTS = 'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text } }';

/** What an SSE answer's body says, as graphql-sse frames it: its `event:` and `data:` lines, in order. */
function sseEvents(text: string): { event: string; data: string }[] {
  return text
    .split('\n\n')
    .filter((block) => block.includes('event:'))
    .map((block) => ({
      event: /^event: ?(.*)$/m.exec(block)?.[1] ?? '',
      data: /^data: ?(.*)$/m.exec(block)?.[1] ?? '',
    }));
}

for (const dialect of DIALECTS) {
  describe(
    `GraphQL subscriptions: the rules of DECISIONS §11 at their edges (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      });
      after(() => t?.close());

      it('ends at once a subscription whose token is past its exp but within the clock tolerance, and sends it nothing', async () => {
        const author = await t.createUser();
        const postId = await newPost(t, author.token, author.id);
        // Accepted on arrival (the tolerance is for clocks that disagree), yet already expired by the server's clock.
        const lapsed = await shortLivedToken(t, author.id, -Math.floor(CLOCK_TOLERANCE_SECONDS / 3));
        const raw = rawSocket(t);
        await raw.opened;
        raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${lapsed}` } });
        raw.send({ type: 'subscribe', id: 'a', payload: { query: COMMENTS, variables: { postId: String(postId) } } });
        const closed = await within(raw.closed, 'the close', 5_000);
        assert.equal(closed.code, 4401);
        const overSse = subscribeSse(t, lapsed, COMMENTS, { postId: String(postId) });
        await within(overSse.ended, 'the end of the SSE subscription', 5_000);
        const res = await t.request('POST', `/api/posts/${postId}/comments`, {
          token: author.token,
          body: { text: 'x' },
        });
        assert.equal(res.status, 201);
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(raw.messages.filter((m) => m.type === 'next').length, 0, 'nothing over WebSocket');
        assert.deepEqual(
          overSse.results.map((r) => r.errors?.[0]?.extensions?.code),
          ['UNAUTHENTICATED'],
          'over SSE only the UNAUTHENTICATED error',
        );
        overSse.client.dispose();
        await subscriptionsLive(t, 0);
      });

      it('serves a subscription to a GET with Accept: text/event-stream, the token in Authorization', async () => {
        const author = await t.createUser();
        const postId = await newPost(t, author.token, author.id);
        const params = new URLSearchParams({ query: COMMENTS, variables: JSON.stringify({ postId: String(postId) }) });
        // node:http rather than fetch: destroying the request closes the connection at once (an aborted fetch
        // left it open until the server's connection timeout).
        const request = get(`${t.url}/graphql?${params}`, {
          headers: { accept: 'text/event-stream', authorization: `Bearer ${author.token}` },
        });
        const res = await new Promise<IncomingMessage>((resolve, reject) =>
          request.on('response', resolve).on('error', reject),
        );
        assert.equal(res.statusCode, 200);
        assert.match(res.headers['content-type'] ?? '', /^text\/event-stream/);
        await subscriptionsLive(t, 1);
        const posted = await t.request('POST', `/api/posts/${postId}/comments`, {
          token: author.token,
          body: { text: 'over GET' },
        });
        assert.equal(posted.status, 201);
        let text = '';
        await within(
          new Promise<void>((resolve) =>
            res.on('data', (chunk: Buffer) => {
              text += String(chunk);
              if (text.includes('over GET')) resolve();
            }),
          ),
          'the comment over the GET stream',
        );
        assert.match(text, /event: next/);
        request.destroy();
        await subscriptionsLive(t, 0);
        const anonymous = await fetch(`${t.url}/graphql?${params}`, { headers: { accept: 'text/event-stream' } });
        assert.equal(anonymous.status, 401);
        await anonymous.body?.cancel();
      });

      it('on shutdown ends open SSE streams without a complete event, so that the client may retry elsewhere (as 1001 tells a WebSocket client)', async () => {
        const second = await startServer(loadConfig(secondInstanceEnv(t)));
        // node:http: destroying the request ends the connection, so a failure here cannot hold the close.
        const body = JSON.stringify({ query: 'subscription { userUpdated(id: "1") { id } }' });
        const stream = request(`${second.url}/graphql`, {
          method: 'POST',
          headers: {
            accept: 'text/event-stream',
            'content-type': 'application/json',
            authorization: `Bearer ${t.adminToken}`,
          },
        });
        try {
          stream.end(body);
          const res = await new Promise<IncomingMessage>((resolve, reject) =>
            stream.on('response', resolve).on('error', reject),
          );
          assert.equal(res.statusCode, 200);
          let text = '';
          res.on('data', (chunk: Buffer) => (text += String(chunk)));
          const ended = new Promise<void>((resolve) => res.on('end', resolve).on('close', resolve));
          await until(() => second.app.live.subscriptions === 1, 'the SSE subscription');
          const closing = second.close();
          await within(ended, 'the end of the SSE stream');
          await closing;
          assert.ok(!sseEvents(text).some((e) => e.event === 'complete'), text);
        } finally {
          stream.destroy();
          await second.close().catch(() => {});
        }
      });
    },
  );
}
