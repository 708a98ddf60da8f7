import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  newComment,
  newPost,
  rawSocket,
  subscribeWs,
  subscriptionsLive,
  until,
  within,
  wsClient,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`GraphQL over WebSocket, a binary message (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    it('closes the socket with 4400 for a binary frame after connection_init, runs nothing of it and keeps serving', async () => {
      const author = await t.createUser();
      const raw = rawSocket(t);
      await raw.opened;
      raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${author.token}` } });
      await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
      // A well-formed subscribe message, but in a binary frame: the protocol's messages are text frames.
      const subscribe = { type: 'subscribe', id: 'b', payload: { query: '{ __typename }' } };
      raw.socket.send(Buffer.from(JSON.stringify(subscribe)), { binary: true });
      const closed = await within(raw.closed, 'the close', 10_000);
      assert.equal(closed.code, 4400, `closed ${closed.code} ${closed.reason}`);
      assert.deepEqual(
        raw.messages.map((m) => m.type),
        ['connection_ack'],
        'nothing answered: the binary message reached no resolver',
      );
      await until(() => t.server.app.live.sockets === 0, 'the socket gone');

      // The server still serves: over HTTP, and a new socket's subscription gets the next comment.
      const query = await t.request('POST', '/graphql', { token: author.token, body: { query: '{ __typename }' } });
      assert.equal(query.status, 200, query.text);
      const postId = await newPost(t, author.token, author.id);
      const client = wsClient(t, author.token);
      try {
        const overWs = subscribeWs(client, 'subscription C($p: ID!) { commentAdded(postId: $p) { text } }', {
          p: String(postId),
        });
        await subscriptionsLive(t, 1);
        await newComment(t, author.token, postId, 'after the binary frame');
        await until(() => overWs.results.length === 1, 'the comment over a new socket');
        assert.deepEqual(overWs.results[0], { data: { commentAdded: { text: 'after the binary frame' } } });
        overWs.stop();
      } finally {
        await client.dispose();
      }
      await subscriptionsLive(t, 0);
    });
  });
}
