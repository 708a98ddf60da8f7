import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import WebSocket from 'ws';
import { loadConfig } from '../../config/config.ts';
import { startServer } from '../../server.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  rawSocket,
  secondInstanceEnv,
  subscribeWs,
  subscriptionsLive,
  until,
  within,
  wsClient,
  wsUrl,
} from '../../../test/support/live-clients.ts';
import { GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const USER = 'subscription U($id: ID!) { userUpdated(id: $id) { id name } }';
const COMMENTS = 'subscription C($postId: ID!) { commentAdded(postId: $postId) { id text } }';

/** The server still answers over HTTP: nothing crashed. */
async function stillServing(t: TestServer): Promise<void> {
  const res = await t.request('GET', '/healthz');
  assert.equal(res.status, 200);
}

for (const dialect of DIALECTS) {
  describe(
    `GraphQL over WebSocket refuses bad input with a protocol error or close code (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      before(async () => {
        t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      });
      after(() => t?.close());

      async function initialised(token = t.adminToken) {
        const raw = rawSocket(t);
        await raw.opened;
        raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${token}` } });
        await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
        return raw;
      }

      it('closes with 4400 on a message that is not JSON or not a protocol message', async () => {
        for (const text of ['{not json', '{"type":"nonsense"}', '[]', '{"type":"subscribe","id":1,"payload":{}}']) {
          const raw = await initialised();
          raw.socket.send(text);
          assert.equal((await within(raw.closed, 'the close')).code, 4400, text);
        }
        await stillServing(t);
      });

      it('closes with 4408 a connection that never sends connection_init, and 4401 a subscribe before it', async () => {
        const silent = rawSocket(t);
        await silent.opened;
        const early = rawSocket(t);
        await early.opened;
        early.send({ type: 'subscribe', id: 'a', payload: { query: USER, variables: { id: '1' } } });
        assert.equal((await within(early.closed, 'the close')).code, 4401);
        assert.equal((await within(silent.closed, 'the close')).code, 4408);
        await stillServing(t);
      });

      it("takes the token from the upgrade request when connection_init carries none, as the connection's viewer", async () => {
        const raw = rawSocket(t, { authorization: `Bearer ${t.adminToken}` });
        await raw.opened;
        raw.send({ type: 'connection_init' });
        await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
        // The administrator (user 1) sees its own e-mail: the header's identity is the viewer's.
        raw.send({ type: 'subscribe', id: 'me', payload: { query: '{ user(id: "1") { email } }' } });
        await until(() => raw.messages.some((m) => m.type === 'next' && m.id === 'me'), 'the answer');
        const answer = raw.messages.find((m) => m.type === 'next' && m.id === 'me') as { payload?: unknown };
        assert.match(JSON.stringify(answer.payload), /"email":"[^"]+@/);
        raw.socket.close();
      });

      it('closes with 4401 a connection whose upgrade request carries a token that is not valid', async () => {
        const raw = rawSocket(t, { authorization: `Bearer ${t.adminToken}x` });
        await raw.opened;
        raw.send({ type: 'connection_init' });
        assert.equal((await within(raw.closed, 'the close')).code, 4401);
        assert.ok(!raw.messages.some((m) => m.type === 'connection_ack'));
        await stillServing(t);
      });

      it('ignores complete for an unknown id, closes with 4409 on a reused id, and answers a flood of subscribes within the cap', async () => {
        const raw = await initialised();
        raw.send({ type: 'complete', id: 'unknown' });
        raw.send({ type: 'subscribe', id: 'q', payload: { query: '{ __typename }' } });
        await until(
          () => raw.messages.some((m) => m.type === 'next' && m.id === 'q'),
          'the query after an unknown complete',
        );
        for (let n = 0; n < 200; n += 1)
          raw.send({ type: 'subscribe', id: `s${n}`, payload: { query: USER, variables: { id: '1' } } });
        await until(() => raw.messages.filter((m) => m.type === 'error').length === 180, '180 refusals');
        await subscriptionsLive(t, 20);
        raw.send({ type: 'subscribe', id: 's0', payload: { query: USER, variables: { id: '1' } } });
        assert.equal((await within(raw.closed, 'the close')).code, 4409);
        await subscriptionsLive(t, 0);
        await stillServing(t);
      });

      it('closes with 1009 on a message over 1 MiB', async () => {
        const raw = await initialised();
        raw.send({ type: 'subscribe', id: 'big', payload: { query: `{ __typename } # ${'x'.repeat(1024 * 1024)}` } });
        assert.equal((await within(raw.closed, 'the close')).code, 1009);
        await stillServing(t);
      });

      it('answers an upgrade of another path with 404, and a socket without the subprotocol is closed with 4406', async () => {
        const res = await new Promise<number>((resolve) => {
          const other = rawSocket({ url: `${t.url}/api` });
          other.socket.on('unexpected-response', (_req, response) => resolve(response.statusCode ?? 0));
          other.socket.on('error', () => {});
        });
        assert.equal(res, 404);
        const { default: WebSocket } = await import('ws');
        const plain = new WebSocket(`${t.url.replace('http', 'ws')}/graphql`);
        const code = await new Promise<number>((resolve) => plain.on('close', (c: number) => resolve(c)));
        assert.equal(code, 4406);
      });
    },
  );

  describe(`GraphQL subscriptions across instances and at shutdown (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
    });
    after(() => t?.close());

    it('closes open sockets with 1001 on shutdown', async () => {
      const second = await startServer(loadConfig(secondInstanceEnv(t)));
      const client = wsClient(
        { url: second.url },
        t.adminToken,
        (event) => (closed = (event as { code: number }).code),
      );
      let closed: number | undefined;
      const live = subscribeWs(client, USER, { id: '1' });
      await until(() => second.app.live.subscriptions === 1, 'the subscription');
      await second.close();
      await within(live.ended, 'the close');
      assert.equal(closed, 1001);
      await client.dispose();
    });

    it('answers the queries in flight on a socket before closing it with 1001 on shutdown', async () => {
      const second = await startServer(loadConfig(secondInstanceEnv(t)));
      let released = false;
      let release = () => {};
      try {
        const raw = rawSocket({ url: second.url });
        await raw.opened;
        raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${t.adminToken}` } });
        await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
        // Hold the users table (SQLite: its one connection; PostgreSQL: a lock) so the query stays in flight.
        let held = () => {};
        const holding = new Promise<void>((resolve) => (held = resolve));
        const holder = second.db.transaction().execute(async (trx) => {
          if (dialect.name === 'postgres') await sql`lock table users in access exclusive mode`.execute(trx);
          held();
          await new Promise<void>((resolve) => (release = resolve));
        });
        await holding;
        raw.send({ type: 'subscribe', id: 'q', payload: { query: '{ user(id: "1") { id name } }' } });
        await until(() => second.app.live.answering === 1, 'the query in flight');
        const closing = second.close();
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(raw.socket.readyState, raw.socket.OPEN, 'not closed while the query is in flight');
        released = true;
        release();
        await holder;
        const { code } = await within(raw.closed, 'the close');
        await closing;
        assert.equal(code, 1001);
        const answer = raw.messages.find((m) => m.id === 'q' && m.type === 'next') as
          { payload: { data: { user: { id: string } } } } | undefined;
        assert.equal(answer?.payload.data.user.id, '1', 'the answer arrived before the close');
        assert.ok(raw.messages.some((m) => m.id === 'q' && m.type === 'complete'));
      } finally {
        if (!released) release();
        await second.close().catch(() => {});
      }
    });

    it('refuses a new WebSocket upgrade and a new SSE subscription with 503 while the open sockets drain on shutdown', async () => {
      const second = await startServer(loadConfig(secondInstanceEnv(t)));
      let release = () => {};
      try {
        const raw = rawSocket({ url: second.url });
        await raw.opened;
        raw.send({ type: 'connection_init', payload: { authorization: `Bearer ${t.adminToken}` } });
        await until(() => raw.messages.some((m) => m.type === 'connection_ack'), 'connection_ack');
        raw.send({ type: 'subscribe', id: 's', payload: { query: USER, variables: { id: '1' } } });
        await until(() => second.app.live.subscriptions === 1, 'the open subscription');
        // A query held in the database keeps the shutdown draining (as in the test above).
        let held = () => {};
        const holding = new Promise<void>((resolve) => (held = resolve));
        const holder = second.db.transaction().execute(async (trx) => {
          if (dialect.name === 'postgres') await sql`lock table users in access exclusive mode`.execute(trx);
          held();
          await new Promise<void>((resolve) => (release = resolve));
        });
        await holding;
        raw.send({ type: 'subscribe', id: 'q', payload: { query: '{ user(id: "1") { id name } }' } });
        await until(() => second.app.live.answering === 1, 'the query in flight');
        const closing = second.close();
        await new Promise((resolve) => setTimeout(resolve, 200));

        const upgrade = new WebSocket(wsUrl({ url: second.url }), 'graphql-transport-ws');
        const refused = await within(
          new Promise<number | undefined>((resolve, reject) => {
            upgrade.on('unexpected-response', (_req, res) => resolve(res.statusCode));
            upgrade.on('open', () => reject(new Error('a new socket was opened during the shutdown')));
            upgrade.on('error', reject);
          }),
          'the answer to a new upgrade',
        );
        assert.equal(refused, 503);
        const sse = await fetch(`${second.url}/graphql`, {
          method: 'POST',
          headers: {
            accept: 'text/event-stream',
            'content-type': 'application/json',
            authorization: `Bearer ${t.adminToken}`,
          },
          body: JSON.stringify({ query: USER, variables: { id: '1' } }),
          signal: AbortSignal.timeout(10_000),
        });
        assert.equal(sse.status, 503, await sse.text());
        // The open ones drain: the socket and its subscription are still there until the query is answered.
        assert.equal(raw.socket.readyState, raw.socket.OPEN);
        assert.equal(second.app.live.subscriptions, 1);
        release();
        await holder;
        assert.equal((await within(raw.closed, 'the close')).code, 1001);
        await closing;
        assert.ok(
          raw.messages.some((m) => m.id === 'q' && m.type === 'next'),
          'the query was answered',
        );
      } finally {
        release();
        await second.close().catch(() => {});
      }
    });

    it(
      'delivers a change made through one instance to the subscribers of another, once each',
      { skip: dialect.name === 'sqlite' ? 'two instances share PostgreSQL (SQLite is for one machine)' : false },
      async () => {
        const second = await startServer(loadConfig(secondInstanceEnv(t)));
        try {
          const author = await t.createUser();
          const post = await t.request('POST', `/api/users/${author.id}/posts`, {
            token: author.token,
            body: { title: 'Shared', content: 'x' },
          });
          const postId = (post.body as { id: number }).id;
          const onSecond = wsClient({ url: second.url }, author.token);
          const onFirst = wsClient(t, author.token);
          const there = subscribeWs(onSecond, COMMENTS, { postId: String(postId) });
          const here = subscribeWs(onFirst, COMMENTS, { postId: String(postId) });
          await until(() => second.app.live.subscriptions === 1 && t.server.app.live.subscriptions === 1, 'both live');
          for (const text of ['a', 'b', 'c']) {
            const res = await t.request('POST', `/api/posts/${postId}/comments`, {
              token: author.token,
              body: { text },
            });
            assert.equal(res.status, 201);
          }
          const viaSecond = await fetch(`${second.url}/api/posts/${postId}/comments`, {
            method: 'POST',
            headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ text: 'd' }),
          });
          assert.equal(viaSecond.status, 201);
          await until(() => there.results.length >= 4 && here.results.length >= 4, 'four comments on each instance');
          await new Promise((resolve) => setTimeout(resolve, 300));
          for (const received of [there, here])
            assert.deepEqual(
              received.results.map((r) => (r.data!.commentAdded as { text: string }).text),
              ['a', 'b', 'c', 'd'],
            );
          await onSecond.dispose();
          await onFirst.dispose();
        } finally {
          await second.close();
        }
      },
    );
  });
}
