import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import {
  commentUntilCutOff,
  newComment,
  newPost,
  sample,
  scrape,
  subscribeSse,
  subscriptionsLive,
  until,
  within,
} from '../../../test/support/live-clients.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const BIG = 'subscription B($postId: ID!) { commentAdded(postId: $postId) { id post { content } } }';

const sse = 'transport="sse"';

/**
 * An SSE subscriber over a bare TCP socket (graphql-sse's distinct connections mode: a POST with
 * `Accept: text/event-stream`), so that the test decides when it stops reading: `socket.pause()` leaves the
 * bytes in the kernel's buffers, as a client that does not read does.
 */
function rawSseSubscriber(
  t: TestServer,
  token: string,
  query: string,
  variables: Record<string, unknown>,
  options: { thenClose?: boolean } = {},
) {
  const { hostname, port } = new URL(t.url);
  const body = JSON.stringify({ query, variables });
  const socket = connect(Number(port), hostname);
  socket.setEncoding('utf8');
  const seen = { next: 0, complete: 0, tail: '', bytes: 0 };
  socket.on('data', (chunk: string) => {
    const joined = seen.tail + chunk;
    // The tail is shorter than either pattern, so no occurrence is counted twice.
    seen.next += joined.split('event: next').length - 1;
    seen.complete += joined.split('event: complete').length - 1;
    seen.tail = joined.slice(-10);
    seen.bytes += chunk.length;
  });
  socket.on('error', () => {}); // a reset is one way of being cut off
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    [
      'POST /graphql HTTP/1.1',
      `Host: ${hostname}:${port}`,
      'Accept: text/event-stream',
      'Content-Type: application/json',
      `Authorization: Bearer ${token}`,
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n'),
    // Closed as soon as the request is handed to the kernel: the server reads it and the end together.
    () => void (options.thenClose && socket.end()),
  );
  return { socket, seen, closed };
}

for (const dialect of DIALECTS) {
  describe(`GraphQL over SSE, back-pressure (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    it('ends the subscription of a client that left before its stream started', async () => {
      const author = await t.createUser();
      const postId = await newPost(t, author.token, author.id);
      // The request reaches the server with the connection's end behind it: the subscription registers (the
      // token checked, the feed reader started) after the connection has closed.
      const raw = rawSseSubscriber(t, author.token, BIG, { postId: String(postId) }, { thenClose: true });
      await within(raw.closed, 'the connection to close', 10_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      // No event comes for it: a stream that is only stopped when an event is written to it would stay.
      await subscriptionsLive(t, 0);
      assert.equal(sample(await scrape(t), 'graphql_live_connections', sse), 0, 'no SSE connection left');
    });

    it('cuts the event stream of a client that stops reading, ends its subscription at once, counts it once and keeps serving', async () => {
      const author = await t.createUser();
      // Each payload carries the post's 100,000 characters: the socket's buffers fill after a few dozen.
      const postId = await newPost(t, author.token, author.id, 'Live', 'x'.repeat(100_000));
      const cutOffBefore = sample(await scrape(t), 'graphql_subscription_cutoffs_total', sse);
      const raw = rawSseSubscriber(t, author.token, BIG, { postId: String(postId) });
      try {
        await subscriptionsLive(t, 1);
        assert.equal(sample(await scrape(t), 'graphql_subscriptions_active', sse), 1);
        // A client that reads is not cut off.
        for (let n = 0; n < 20; n += 1) await newComment(t, author.token, postId, `read ${n}`);
        await until(() => raw.seen.next === 20, 'twenty payloads read', 20_000);
        raw.socket.pause();
        assert.equal(await commentUntilCutOff(t, author.token, postId, sse), 1, 'cut off once');
        // The subscription was dropped at once, while the client still reads nothing.
        await subscriptionsLive(t, 0);
        const ended = await scrape(t);
        assert.equal(sample(ended, 'graphql_subscriptions_active', sse), 0, 'no SSE subscription left');
        // The stream was cut, not ended: once the client reads again it finds the connection closed after a
        // part of what was sent, with no `complete` event (a stream that ended would send one and stay open).
        raw.socket.resume();
        await within(raw.closed, 'the cut connection to close', 30_000);
        assert.equal(raw.seen.complete, 0, 'no complete event: the stream was cut');
        assert.ok(raw.seen.next >= 20, `${raw.seen.next} payloads`);
        let connections = -1;
        for (const deadline = Date.now() + 10_000; connections !== 0 && Date.now() < deadline;) {
          connections = sample(await scrape(t), 'graphql_live_connections', sse);
          if (connections !== 0) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.equal(connections, 0, 'the SSE connection is gone from /metrics');
        assert.equal(sample(await scrape(t), 'graphql_subscription_cutoffs_total', sse) - cutOffBefore, 1);
      } finally {
        raw.socket.destroy();
      }

      // The server is still up: a query is answered and a new SSE subscriber gets the next comment.
      const query = await t.request('POST', '/graphql', { token: author.token, body: { query: '{ __typename }' } });
      assert.equal(query.status, 200, query.text);
      assert.deepEqual(query.body, { data: { __typename: 'Query' } });
      const next = subscribeSse(t, author.token, 'subscription C($p: ID!) { commentAdded(postId: $p) { text } }', {
        p: String(postId),
      });
      try {
        await subscriptionsLive(t, 1);
        await newComment(t, author.token, postId, 'after the cut');
        // The new subscription may first get unread comments committed just before it (the reader goes on
        // from the feed's place: docs/GRAPHQL.md, "Where a subscription starts"), each once; the new one comes last.
        const texts = () =>
          next.results.map((r) => (r as { data: { commentAdded: { text: string } } }).data.commentAdded.text);
        await until(() => texts().includes('after the cut'), 'the comment after the cut', 30_000);
        assert.equal(texts().at(-1), 'after the cut');
        assert.equal(new Set(texts()).size, texts().length, 'no comment twice');
      } finally {
        next.stop();
        next.client.dispose();
      }
      await subscriptionsLive(t, 0);
    });
  });
}
