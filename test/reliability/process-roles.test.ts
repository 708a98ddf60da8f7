import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildServer } from '../support/child-server.ts';
import { DIALECTS } from '../support/dialects.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { call, percentile, signUpUsers, waitFor } from './harness.test-support.ts';
import {
  addProduct,
  apiOf,
  createEndpoint,
  deliveriesOf,
  metricOf,
  startRole,
  stopRole,
  timesReceived,
  untilDelivered,
  type Api,
} from './process-roles.test-support.ts';

/**
 * DECISIONS §16: API processes (`serve --role api`) write events and run no background worker; worker
 * processes (`content-service worker`) run them all. Every guarantee of §3 and §10 holds in any mix: with
 * no worker, events wait in the outbox; a worker started later delivers each once; a worker killed
 * mid-delivery is taken over by another once its leases run out. The cases run in order on one database
 * per dialect, each starting from what the one before left.
 */
for (const dialect of DIALECTS) {
  describe(`process roles on one database (${dialect.name})`, { skip: dialect.skip }, () => {
    let database: { url: string; drop(): Promise<void> };
    let receiver: WebhookReceiver;
    let apiProcess: ChildServer;
    let api: Api;
    let endpoint: number;
    /** The product events written while no worker ran. */
    let waiting: string[] = [];
    let report: number;
    let order: number;
    let worker: ChildServer | undefined;

    before(async () => {
      database = await dialect.createDatabase();
      receiver = await startWebhookReceiver();
      apiProcess = await startRole({ DATABASE_URL: database.url }, ['serve', '--role', 'api']);
      api = await apiOf(apiProcess.url);
      endpoint = await createEndpoint(api, `${receiver.url}/all`);
    });
    after(async () => {
      for (const server of [worker, apiProcess]) if (server?.process.exitCode === null) await stopRole(server);
      await receiver?.close();
      await database?.drop();
    });

    it('an API process alone writes every event but delivers none, runs no report and sweeps no order: all wait', async () => {
      // The start-up line may follow the first ready answer.
      await waitFor(
        () => apiProcess.lines.some((line) => line.includes('"role":"api"') && line.includes('API only')),
        10_000,
        'the start-up line saying the process serves the API only',
      );
      for (let i = 0; i < 10; i += 1) await addProduct(api, `waiting ${i}`);
      const [buyer] = await signUpUsers(api.url, 1, `roles-${dialect.name}`);
      const product = await addProduct(api, 'held');
      const placed = await call(api.url, 'POST', '/api/orders', {
        token: buyer!.token,
        body: { items: [{ productId: product.id, quantity: 1 }] },
      });
      assert.equal(placed.status, 201);
      order = placed.body.id as number;
      const queued = await call(api.url, 'POST', '/api/reports/generate', {
        token: api.admin,
        body: { type: 'sales' },
      });
      assert.equal(queued.status, 202);
      report = queued.body.id as number;

      // Many poll intervals of a worker, and past the order's hold: nothing moves without one.
      await sleep(2000);
      assert.equal(receiver.received.length, 0, 'no webhook request');
      assert.deepEqual(await deliveriesOf(api, endpoint), [], 'no delivery fanned out');
      const feed = await call(api.url, 'GET', '/api/events?limit=1000', { token: api.admin });
      assert.equal(feed.status, 200);
      const events = feed.body.data as { id: string; type: string }[];
      waiting = events.filter((event) => event.type === 'product.created').map((event) => event.id);
      assert.equal(waiting.length, 11);
      assert.equal(await metricOf(api.url, 'webhook_events_behind'), events.length, 'every event is in the backlog');
      const job = await call(api.url, 'GET', `/api/reports/${report}`, { token: api.admin });
      assert.equal(job.body.status, 'queued');
      const held = await call(api.url, 'GET', `/api/orders/${order}`, { token: api.admin });
      assert.equal(held.body.status, 'pending', 'past its hold, but no process sweeps');
    });

    it('a worker started later delivers every waiting event exactly once, runs the report and cancels the order', async () => {
      worker = await startRole({ DATABASE_URL: database.url }, ['worker']);
      await untilDelivered(api, endpoint, waiting.length);
      // Several more fan-out and delivery polls: a second delivery of any event would arrive now.
      await sleep(1000);
      const times = timesReceived(receiver.at('/all'));
      assert.deepEqual([...times.keys()].sort(), [...waiting].sort(), 'every waiting event, by id');
      assert.deepEqual(
        [...times].filter(([, count]) => count !== 1),
        [],
        'each once',
      );
      assert.equal(await metricOf(worker.url, 'webhook_events_behind'), 0, 'the backlog is gone');
      await waitFor(
        async () => (await call(api.url, 'GET', `/api/reports/${report}`, { token: api.admin })).body.status === 'done',
        10_000,
        'the report',
      );
      await waitFor(
        async () =>
          (await call(api.url, 'GET', `/api/orders/${order}`, { token: api.admin })).body.status === 'cancelled',
        10_000,
        'the overdue order cancelled',
      );
    });

    it('a write made while an API and a worker process run reaches the receiver well within a second', async (t) => {
      // The worker finds commits by polling (WEBHOOK_FANOUT_POLL_MS, default 200 ms): it has none of its own.
      const before = receiver.at('/all').length;
      const written: { id: number; answeredAt: number }[] = [];
      for (let i = 0; i < 20; i += 1) {
        written.push(await addProduct(api, `live ${i}`));
        await sleep(30);
      }
      await receiver.waitFor('/all', before + written.length, 10_000);
      const arrivals = new Map(receiver.at('/all').map((item) => [Number(item.event.data.id), item.at]));
      const latencies = written.map((write) => arrivals.get(write.id)! - write.answeredAt);
      const [p50, p99] = [percentile(latencies, 50), percentile(latencies, 99)];
      t.diagnostic(`answer → delivery: p50 ${p50} ms, p99 ${p99} ms over ${latencies.length} writes`);
      assert.ok(p50 < 1000, `median ${p50} ms`);
    });

    it("a SIGKILLed worker's delivery in flight and its fan-out are taken over by another worker once their leases run out", async () => {
      let takeoverRequests = 0;
      // The first request is kept unanswered: the worker that sent it dies with it in flight.
      receiver.respond('/takeover', () => (++takeoverRequests === 1 ? { hang: true } : { status: 200 }));
      const second = await createEndpoint(api, `${receiver.url}/takeover`);
      const inFlight = await addProduct(api, 'in flight');
      const [sent] = await receiver.waitFor('/takeover', 1, 10_000);
      assert.equal(Number(sent!.event.data.id), inFlight.id);
      // The other endpoint's delivery of it is done and recorded: only the one in flight is left to take over.
      await untilDelivered(api, endpoint, waiting.length + 20 + 1);

      worker!.process.kill('SIGKILL');
      await worker!.exited;
      // Written while no worker runs, under the dead worker's fan-out lease.
      const afterDeath = await addProduct(api, 'after the kill');
      worker = await startRole({ DATABASE_URL: database.url }, ['worker']);

      await untilDelivered(api, second, 2);
      await receiver.waitFor('/all', waiting.length + 20 + 2, 10_000);
      await sleep(1000);
      const takeover = receiver.at('/takeover');
      // Two resources: the resend (once the dead worker's delivery lease ran out) and the new event (once its
      // fan-out lease did) may come in either order.
      assert.deepEqual(
        takeover.map((item) => [Number(item.event.data.id), item.answered]).sort(),
        [
          [inFlight.id, false],
          [inFlight.id, true],
          [afterDeath.id, true],
        ].sort(),
        'the cut-off attempt, sent again by the new worker, and the event written meanwhile',
      );
      assert.deepEqual(takeover[0]!.answered, false, 'the cut-off attempt came first');
      const resent = takeover.find((item, i) => i > 0 && Number(item.event.data.id) === inFlight.id);
      assert.equal(resent!.headers['webhook-id'], takeover[0]!.headers['webhook-id'], 'the same event id');
      const all = timesReceived(receiver.at('/all'));
      assert.deepEqual(
        [...all].filter(([, count]) => count !== 1),
        [],
        'the other endpoint got each event once',
      );
    });
  });
}
