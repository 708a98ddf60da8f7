import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { natsSkip, testStream, type TestStream } from '../../../test/support/nats.ts';
import { startInstanceOn, type Instance } from '../../../test/support/orders.ts';
import { createCuttableProxy } from '../../../test/support/tcp-proxy.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import type { DomainEvent } from '../events/event.ts';
import { NATS_CONSUMER } from './nats-publisher.ts';

/**
 * DECISIONS §10 "Broker", against the real NATS server: every event published once to
 * `<prefix>.<type>` with `Nats-Msg-Id` = its id, in feed order; the stream created when missing; NATS
 * away → the API serves, /readyz 200, the events wait and all go once it is back; a re-publication is
 * a duplicate JetStream drops; two instances on one database publish each event once.
 */

const FAST = { NATS_POLL_MS: '100', NATS_PUBLISH_TIMEOUT_MS: '1000', REPORT_WORKER: 'false' };

async function waitFor(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The whole feed, oldest first, as an admin reads it. */
async function feedOf(t: TestServer): Promise<DomainEvent[]> {
  const answer = await t.request('GET', '/api/events?limit=1000', { token: t.adminToken });
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { data: DomainEvent[] }).data;
}

/** The publisher has registered its place in the feed (its first step ran): later events are its own. */
const publisherStarted = (t: TestServer) =>
  waitFor(
    async () =>
      (await t.server.db
        .selectFrom('event_consumers')
        .select('consumer')
        .where('consumer', '=', NATS_CONSUMER)
        .executeTakeFirst()) !== undefined,
    'the publisher to start',
  );

async function metric(t: TestServer, line: string): Promise<number | undefined> {
  const text = (await t.request('GET', '/metrics')).text;
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

/** Writes `count` products, updating every third and deleting every third; returns how many events that made. */
async function writeEvents(t: TestServer, tag: string, count: number): Promise<number> {
  let events = 0;
  for (let i = 0; i < count; i += 1) {
    const created = await t.request('POST', '/api/products', {
      token: t.adminToken,
      body: { name: `${tag} ${i}`, category: 'broker', price: 1, stock: 1 },
    });
    assert.equal(created.status, 201, created.text);
    const id = (created.body as { id: number }).id;
    events += 1;
    if (i % 3 === 1) {
      const patched = await t.request('PATCH', `/api/products/${id}`, { token: t.adminToken, body: { price: 2 } });
      assert.equal(patched.status, 200, patched.text);
      events += 1;
    }
    if (i % 3 === 2) {
      assert.equal((await t.request('DELETE', `/api/products/${id}`, { token: t.adminToken })).status, 204);
      events += 1;
    }
  }
  return events;
}

/** The stream holds exactly the feed, in feed order, each on its subject with its id as Nats-Msg-Id. */
async function assertStreamIsFeed(t: TestServer, nats: TestStream): Promise<void> {
  const feed = await feedOf(t);
  const stored = await nats.messages();
  assert.deepEqual(
    stored.map((m) => m.msgId),
    feed.map((e) => e.id),
    'each event once, in feed order, Nats-Msg-Id = its id',
  );
  assert.deepEqual(
    stored.map((m) => m.subject),
    feed.map((e) => `${nats.prefix}.${e.type}`),
  );
  assert.deepEqual(
    stored.map((m) => m.body),
    feed,
    'the payload is the event JSON as the feed shows it',
  );
}

for (const dialect of DIALECTS) {
  describe(`broker: NATS JetStream publication (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let t: TestServer;
    let nats: TestStream;
    before(async () => {
      nats = await testStream();
      t = await startTestServer(dialect, { ...nats.env, ...FAST });
      await publisherStarted(t);
    });
    after(async () => {
      await t?.close();
      await nats?.close();
    });

    it('creates the stream when missing and publishes every event once, in feed order, with Nats-Msg-Id = its id', async () => {
      await assert.rejects(nats.jsm.streams.info(nats.stream), 'no stream before the first event');
      await t.createUser();
      const expected = 1 + (await writeEvents(t, 'published', 9));
      await waitFor(async () => (await nats.messages()).length >= expected, `${expected} messages in the stream`);
      const info = await nats.jsm.streams.info(nats.stream);
      assert.deepEqual(info.config.subjects, [`${nats.prefix}.>`]);
      await assertStreamIsFeed(t, nats);
      assert.equal(await t.server.app.services.events.countBehind(NATS_CONSUMER), 0);
      assert.equal(await metric(t, 'nats_publisher_backlog'), 0);
      assert.equal(await metric(t, 'nats_publications_total{outcome="published"}'), expected);
    });

    it('publishes events again after a crash before the move as duplicates that JetStream drops (Nats-Msg-Id)', async () => {
      const before = await nats.messages();
      assert.ok(before.length > 0);
      const duplicatesBefore = (await metric(t, 'nats_publications_total{outcome="duplicate"}')) ?? 0;
      // As if the instance died after the acks and before moving its place: back to before the first event.
      const first = await t.server.db
        .selectFrom('events')
        .select(['tx', 'seq'])
        .where('event_id', '=', before[0]!.msgId!)
        .executeTakeFirstOrThrow();
      await t.server.db
        .updateTable('event_consumers')
        .set({ tx: first.tx, seq: first.seq - 1 })
        .where('consumer', '=', NATS_CONSUMER)
        .execute();
      await waitFor(
        async () => (await t.server.app.services.events.countBehind(NATS_CONSUMER)) === 0,
        'the events to go again',
      );
      assert.equal(
        (await metric(t, 'nats_publications_total{outcome="duplicate"}'))! - duplicatesBefore,
        before.length,
        'every re-publication acked as a duplicate',
      );
      assert.deepEqual(await nats.messages(), before, 'the stream holds each event once still');
      // The header itself: a message with a known Nats-Msg-Id is dropped whatever its payload.
      const ack = await nats.js.publish(`${nats.prefix}.product.created`, '{}', { msgID: before[0]!.msgId! });
      assert.equal(ack.duplicate, true);
    });
  });

  describe(`broker: NATS away (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let t: TestServer;
    let nats: TestStream;
    let proxy: ReturnType<typeof createCuttableProxy>;
    before(async () => {
      nats = await testStream();
      // The server's only way to NATS is a proxy the test cuts and restores; down from the start.
      proxy = createCuttableProxy({ host: '127.0.0.1', port: Number(new URL(nats.env.NATS_URL).port) });
      await proxy.start();
      await proxy.cut();
      t = await startTestServer(dialect, { ...nats.env, ...FAST, NATS_URL: `nats://127.0.0.1:${proxy.port}` });
      await publisherStarted(t);
    });
    after(async () => {
      await t?.close();
      await proxy?.cut();
      await nats?.close();
    });

    const behind = () => t.server.app.services.events.countBehind(NATS_CONSUMER);

    it('keeps serving while NATS is away, keeps the events in the outbox, and publishes them all in order once it is back', async () => {
      const written = await writeEvents(t, 'never connected yet', 4);
      assert.equal((await t.request('GET', '/readyz')).status, 200);
      await sleep(500);
      assert.equal(await behind(), written, 'every event waits in the outbox');
      assert.equal(await metric(t, 'nats_publisher_backlog'), written);
      // A publication is tried once the feed shows the events: on PostgreSQL after every older transaction
      // of the whole server has ended, which other suites' (or a seed's) long transactions can delay.
      await waitFor(
        async () => (await metric(t, 'nats_publications_total{outcome="failed"}'))! > 0,
        'a failed publication to be counted',
      );
      assert.deepEqual(await nats.messages(), [], 'nothing reached NATS');

      await proxy.start();
      await waitFor(async () => (await behind()) === 0, 'the backlog to be published once NATS is reachable');
      await assertStreamIsFeed(t, nats);

      // Connected, then cut: the client's own reconnection brings it back.
      await proxy.cut();
      const more = await writeEvents(t, 'while away again', 5);
      assert.equal((await t.request('GET', '/readyz')).status, 200);
      await sleep(500);
      assert.equal(await behind(), more, 'the backlog grows');
      assert.equal((await nats.messages()).length, written);
      await proxy.start();
      await waitFor(async () => (await behind()) === 0, 'the backlog to be published after the reconnection');
      await assertStreamIsFeed(t, nats);
    });

    it('stops promptly while NATS is away, leaving the unpublished events in the outbox', async () => {
      await proxy.cut();
      await writeEvents(t, 'left for later', 1);
      const started = Date.now();
      // The app's close runs the workers' stops (the database stays open for the checks; after() closes it).
      await t.server.app.http.close();
      assert.ok(Date.now() - started < 5000, `closed in ${Date.now() - started} ms`);
      const row = await t.server.db
        .selectFrom('event_consumers')
        .selectAll()
        .where('consumer', '=', NATS_CONSUMER)
        .executeTakeFirstOrThrow();
      assert.equal(row.holder, null, 'the lease was released');
      assert.equal(await behind(), 1, 'the event waits in the outbox');
    });
  });

  describe(
    `broker: woken by a commit (${dialect.name})`,
    {
      // A commit wakes the publisher on both databases (the same listener), but on PostgreSQL the feed shows
      // an event once every older transaction of the whole server has ended, and the suites share it: the
      // wake may find nothing yet and the event wait for the next commit or poll. Checked on SQLite.
      skip: dialect.skip || natsSkip || (dialect.name === 'postgres' && 'the wake is checked on SQLite'),
    },
    () => {
      let t: TestServer;
      let nats: TestStream;
      before(async () => {
        nats = await testStream();
        // No poll within the test: only the commit's wake can publish the event.
        t = await startTestServer(dialect, { ...nats.env, ...FAST, NATS_POLL_MS: '60000' });
        await publisherStarted(t);
      });
      after(async () => {
        await t?.close();
        await nats?.close();
      });

      it('publishes an event right after its commit, not at the next poll', async (context) => {
        const started = Date.now();
        await writeEvents(t, 'woken', 1);
        await waitFor(async () => (await nats.messages()).length === 1, 'the event to be published', 5000);
        context.diagnostic(`published ${Date.now() - started} ms after the write was sent`);
      });
    },
  );

  describe(`broker: two instances on one database (${dialect.name})`, { skip: dialect.skip || natsSkip }, () => {
    let t: TestServer;
    let other: Instance;
    let nats: TestStream;
    before(async () => {
      nats = await testStream();
      t = await startTestServer(dialect, { ...nats.env, ...FAST });
      other = await startInstanceOn(t, { ...nats.env, ...FAST });
      await publisherStarted(t);
    });
    let closed = false;
    after(async () => {
      if (!closed) await other?.close();
      await t?.close();
      await nats?.close();
    });

    it('publishes each event once whichever instance wrote it, and goes on from the other when one stops', async () => {
      const token = t.adminToken;
      const writes = Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? t.request : other.request)('POST', '/api/products', {
          token,
          body: { name: `two instances ${i}`, category: 'broker', price: 1, stock: 1 },
        }),
      );
      for (const answer of await Promise.all(writes)) assert.equal(answer.status, 201, answer.text);
      const behind = () => t.server.app.services.events.countBehind(NATS_CONSUMER);
      await waitFor(async () => (await behind()) === 0, 'the events to be published');
      await assertStreamIsFeed(t, nats);

      const totals = () => [t, other].map((instance) => instance.server.app.services.broker!.totals());
      const [first, second] = totals();
      assert.equal(first!.published! + second!.published!, 20, 'published once in all');
      assert.equal(first!.duplicate! + second!.duplicate!, 0, 'and never twice');

      // One instance stops (releasing the lease if it held it); the other goes on.
      await other.close();
      closed = true;
      await writeEvents(t, 'one instance left', 3);
      await waitFor(async () => (await behind()) === 0, 'the events written after the stop to be published');
      await assertStreamIsFeed(t, nats);
    });
  });
}
