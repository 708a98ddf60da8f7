import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';

interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Opens the stream and collects messages (comments included) until `enough` says so; then hangs up. */
async function readStream(
  t: TestServer,
  path: string,
  headers: Record<string, string>,
  enough: (messages: SseMessage[]) => boolean,
): Promise<{ status: number; type: string | null; messages: SseMessage[] }> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 15_000);
  const response = await fetch(`${t.url}${path}`, {
    headers: { authorization: `Bearer ${t.adminToken}`, ...headers },
    signal: abort.signal,
  });
  const messages: SseMessage[] = [];
  if (response.status !== 200) {
    clearTimeout(timer);
    return {
      status: response.status,
      type: response.headers.get('content-type'),
      messages: [{ data: await response.text() }],
    };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    while (!enough(messages)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) message.comment = line.slice(1).trim();
          else {
            const colon = line.indexOf(': ');
            (message as Record<string, string>)[line.slice(0, colon)] = line.slice(colon + 2);
          }
        }
        messages.push(message);
      }
    }
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { status: response.status, type: response.headers.get('content-type'), messages };
}

const eventsIn = (messages: SseMessage[]) => messages.filter((m) => m.event !== undefined);

for (const dialect of DIALECTS) {
  describe(`events feed and stream (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        REPORT_WORKER: 'false',
        EVENT_STREAM_HEARTBEAT_MS: '300',
        EVENT_STREAM_POLL_MS: '50',
      });
    });
    after(() => t?.close());

    it('is for admins only: 401 without a token, 403 for a user, on the list and the stream', async () => {
      const user = await t.createUser();
      for (const path of ['/api/events', '/api/events/stream']) {
        const anonymous = await t.request('GET', path);
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.body.error.code, 'UNAUTHORIZED');
        const forbidden = await t.request('GET', path, { token: user.token });
        assert.equal(forbidden.status, 403);
        assert.equal(forbidden.body.error.code, 'FORBIDDEN');
      }
    });

    it('answers 422 in the error envelope for an unknown type or prefix, a cursor not ours and a limit out of range', async () => {
      const bad = [
        ['types=order.shipped', 'types'],
        ['types=widget.*', 'types'],
        ['types=order.*,', 'types'],
        ['after=bm90LW91cnM', 'after'],
        ['after=evt_00000000-0000-0000-0000-000000000000', 'after'],
        ['after=12', 'after'],
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=ten', 'limit'],
      ];
      for (const [query, field] of bad) {
        for (const path of ['/api/events', '/api/events/stream']) {
          const answer = await t.request('GET', `${path}?${query}`, { token: t.adminToken });
          assert.equal(answer.status, 422, `${path}?${query}: ${answer.text}`);
          assert.equal(answer.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            answer.body.error.details.some((d: { field: string }) => d.field === field),
            `${query}: ${answer.text}`,
          );
        }
      }
      const resumed = await t.request('GET', '/api/events/stream', {
        token: t.adminToken,
        headers: { 'last-event-id': 'nope' },
      });
      assert.equal(resumed.status, 422);
    });

    it('pages oldest first with nextCursor, takes an event id as after, and filters by types and prefixes', async () => {
      const start = await feedEnd(t);
      const customer = await t.createUser();
      const product = (
        await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'Feed', category: 'x', price: 2, stock: 5 },
        })
      ).body;
      const order = (
        await t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
        })
      ).body;
      await t.request('POST', `/api/orders/${order.id}/pay`, { token: customer.token });
      const all = await eventsAfter(t, start, 4);
      assert.deepEqual(
        all.map((e) => e.type),
        ['user.created', 'product.created', 'order.created', 'order.paid'],
      );

      const first = await t.request('GET', `/api/events?limit=2${start ? `&after=${start}` : ''}`, {
        token: t.adminToken,
      });
      assert.deepEqual(
        first.body.data.map((e: { id: string }) => e.id),
        all.slice(0, 2).map((e) => e.id),
      );
      const second = await t.request('GET', `/api/events?limit=2&after=${first.body.nextCursor}`, {
        token: t.adminToken,
      });
      assert.deepEqual(
        second.body.data.map((e: { id: string }) => e.id),
        all.slice(2, 4).map((e) => e.id),
      );
      const end = await t.request('GET', `/api/events?after=${second.body.nextCursor}`, { token: t.adminToken });
      assert.deepEqual(
        end.body,
        { data: [], nextCursor: second.body.nextCursor },
        'at the end, the cursor to poll again with',
      );

      const byId = await t.request('GET', `/api/events?after=${all[1]!.id}`, { token: t.adminToken });
      assert.deepEqual(
        byId.body.data.map((e: { id: string }) => e.id),
        all.slice(2).map((e) => e.id),
      );

      const orders = await eventsAfter(t, start, 2, '&types=order.*');
      assert.deepEqual(
        orders.map((e) => e.type),
        ['order.created', 'order.paid'],
      );
      const some = await eventsAfter(t, start, 2, `&types=${encodeURIComponent('user.created, order.paid')}`);
      assert.deepEqual(
        some.map((e) => e.type),
        ['user.created', 'order.paid'],
      );
    });

    it('streams events as SSE with the cursor as id, resumes after Last-Event-ID with no gap and no repeat, and sends heartbeats', async () => {
      const start = await feedEnd(t);
      const first = await t.createUser();
      const streamPath = `/api/events/stream${start ? `?after=${start}` : ''}`;
      const opened = await readStream(t, streamPath, {}, (messages) => eventsIn(messages).length >= 1);
      assert.equal(opened.status, 200);
      assert.match(opened.type ?? '', /^text\/event-stream/);
      const [created] = eventsIn(opened.messages);
      assert.equal(created!.event, 'user.created');
      const event = JSON.parse(created!.data!);
      assert.equal(event.data.id, first.id);
      assert.ok(created!.id, 'each message has its cursor as id');

      // Written while nobody listens: a resumed stream starts right after the last event it had.
      const second = await t.createUser();
      const product = await t.request('POST', '/api/products', {
        token: t.adminToken,
        body: { name: 'SSE', category: 'x', price: 1, stock: 1 },
      });
      const resumed = await readStream(
        t,
        '/api/events/stream',
        { 'last-event-id': created!.id! },
        (messages) => eventsIn(messages).length >= 2,
      );
      const again = eventsIn(resumed.messages).map((m) => JSON.parse(m.data!));
      assert.deepEqual(
        again.map((e) => [e.type, e.data.id]),
        [
          ['user.created', second.id],
          ['product.created', product.body.id],
        ],
      );

      // Filtered, and quiet long enough for heartbeats (300 ms here; at most 15 s by configuration).
      const quiet = await readStream(
        t,
        `/api/events/stream?types=report.*&after=${created!.id}`,
        {},
        (messages) => messages.filter((m) => m.comment === 'heartbeat').length >= 2,
      );
      assert.deepEqual(eventsIn(quiet.messages), []);

      // A live event reaches an open stream.
      const live = readStream(
        t,
        `/api/events/stream?after=${eventsIn(resumed.messages).at(-1)!.id}`,
        {},
        (messages) => eventsIn(messages).length >= 1,
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const third = await t.createUser();
      const [arrived] = eventsIn((await live).messages);
      assert.equal(JSON.parse(arrived!.data!).data.id, third.id);
    });

    it('answers a HEAD of the stream with its headers and no stream', async () => {
      const answer = await fetch(`${t.url}/api/events/stream`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${t.adminToken}` },
      });
      assert.equal(answer.status, 200);
      assert.match(answer.headers.get('content-type') ?? '', /^text\/event-stream/);
      // As the GET (a stream), no validator: a conditional HEAD is not answered 304 for a body never sent.
      assert.equal(answer.headers.get('etag'), null);
      const conditional = await fetch(`${t.url}/api/events/stream`, {
        method: 'HEAD',
        headers: { authorization: `Bearer ${t.adminToken}`, 'if-none-match': '*' },
      });
      assert.equal(conditional.status, 200);
    });

    it('purges events older than the retention, keeping those a registered consumer has not passed', async () => {
      const { db } = t.server;
      await t.createUser();
      await feedEnd(t);
      const old = new Date(Date.now() - 200 * 3_600_000).toISOString();
      const rows = await db.selectFrom('events').select(['tx', 'seq']).orderBy('tx').orderBy('seq').execute();
      assert.ok(rows.length >= 2);
      await db.updateTable('events').set({ created_at: old }).execute();
      // A consumer that has got halfway keeps the rest.
      const middle = rows[Math.floor(rows.length / 2)]!;
      await db
        .insertInto('event_consumers')
        .values({ consumer: 'test', tx: middle.tx, seq: middle.seq, updated_at: old })
        .execute();
      const purged = await t.server.app.services.events.purgeExpired();
      assert.equal(purged, Math.floor(rows.length / 2) + 1);
      await db.deleteFrom('event_consumers').execute();
      assert.equal(await t.server.app.services.events.purgeExpired(), rows.length - purged);
      assert.equal(await t.server.app.services.events.countEvents(), 0);
      const metrics = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.adminToken}` } });
      assert.match(await metrics.text(), /^events_kept 0$/m, 'the outbox size is a gauge of /metrics');
    });
  });

  describe(`events of the background jobs (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, {
        ORDER_HOLD_WORKER: 'true',
        ORDER_HOLD_MINUTES: '0.005',
        ORDER_SWEEP_INTERVAL_MS: '50',
        REPORT_WORKER: 'true',
        REPORT_POLL_MS: '50',
      });
    });
    after(() => t?.close());

    it('emits order.cancelled when a hold runs out and report.completed when the worker finishes', async () => {
      const start = await feedEnd(t);
      const customer = await t.createUser();
      const product = (
        await t.request('POST', '/api/products', {
          token: t.adminToken,
          body: { name: 'Held', category: 'x', price: 1, stock: 5 },
        })
      ).body;
      const order = (
        await t.request('POST', '/api/orders', {
          token: customer.token,
          body: { items: [{ productId: product.id, quantity: 1 }] },
        })
      ).body;
      await t.request('POST', '/api/reports/generate', { token: t.adminToken, body: { type: 'sales' } });
      const seen = await eventsAfter(t, start, 5);
      const types = seen.map((e) => e.type);
      assert.deepEqual(
        types.filter((type) => type.startsWith('order.')),
        ['order.created', 'order.cancelled'],
      );
      assert.deepEqual(
        types.filter((type) => type === 'report.completed'),
        ['report.completed'],
      );
      const cancelled = seen.find((e) => e.type === 'order.cancelled')!;
      assert.equal(cancelled.data.id, order.id);
      assert.equal(cancelled.data.status, 'cancelled');
    });
  });
}
