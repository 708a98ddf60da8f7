import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startWebhookReceiver } from '../../../test/support/webhook-receiver.ts';
import { call, startProcess, tokenFor, waitFor } from '../../../test/reliability/harness.test-support.ts';

/**
 * Webhooks across real server processes (`node src/cli.ts serve`): two instances on one PostgreSQL
 * deliver each event exactly once; a SIGKILL in the middle of deliveries loses none (at least once,
 * after a restart: the killed process's claims run out and are sent again).
 */

const WEBHOOK_ENV = {
  REPORT_WORKER: 'false',
  WEBHOOK_FANOUT_POLL_MS: '50',
  WEBHOOK_DELIVERY_POLL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  // The lease is at least the timeout + 1 s: 2 s here.
  WEBHOOK_LEASE_MS: '100',
};

async function ok(answer: Promise<{ status: number; body: { id: number } }>, status = 201): Promise<number> {
  const { status: got, body } = await answer;
  assert.equal(got, status, JSON.stringify(body));
  return body.id;
}

const addProducts = (bases: string[], token: string, count: number, tag: string) =>
  Promise.all(
    Array.from({ length: count }, (_, i) =>
      ok(
        call(bases[i % bases.length]!, 'POST', '/api/products', {
          token,
          body: { name: `${tag} ${i}`, category: 'instances', price: 1, stock: 1 },
        }),
      ),
    ),
  );

const countById = (ids: string[]) => {
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
};

for (const dialect of DIALECTS) {
  describe(`webhooks across processes (${dialect.name})`, { skip: dialect.skip }, () => {
    it(
      'delivers each event exactly once with two instances on one database',
      { skip: dialect.name === 'sqlite' ? 'two instances need PostgreSQL' : false, timeout: 120_000 },
      async (t) => {
        const database = await dialect.createDatabase();
        const receiver = await startWebhookReceiver();
        try {
          const env = { ...WEBHOOK_ENV, DATABASE_URL: database.url };
          const first = await startProcess(env);
          const second = await startProcess(env);
          const admin = await tokenFor(1, 'admin');
          await ok(call(first.url, 'POST', '/api/webhooks', { token: admin, body: { url: `${receiver.url}/two` } }));
          const products = await addProducts([first.url, second.url], admin, 60, 'two');
          await receiver.waitFor('/two', 60, 30_000);
          // Time for a duplicate to show up.
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const counts = countById(receiver.at('/two').map((item) => item.event.id));
          assert.equal(counts.size, 60);
          assert.deepEqual(
            [...counts].filter(([, n]) => n > 1),
            [],
            'no event delivered twice',
          );
          const ids = new Set(receiver.at('/two').map((item) => item.event.data.id as number));
          assert.deepEqual(
            products.filter((id) => !ids.has(id)),
            [],
          );
          t.diagnostic(`${receiver.at('/two').length} requests for 60 events`);
          first.process.kill('SIGTERM');
          second.process.kill('SIGTERM');
          await Promise.all([first.exited, second.exited]);
        } finally {
          await receiver.close();
          await database.drop();
        }
      },
    );

    it(
      'delivers every event at least once after a SIGKILL in the middle of deliveries',
      { timeout: 120_000 },
      async (t) => {
        const database = await dialect.createDatabase();
        const receiver = await startWebhookReceiver();
        // Slow answers: when the process is killed, several deliveries are in flight.
        receiver.script('/kill', { status: 200, delayMs: 300 });
        try {
          const env = { ...WEBHOOK_ENV, DATABASE_URL: database.url, WEBHOOK_ENDPOINT_CONCURRENCY: '4' };
          const first = await startProcess(env);
          const admin = await tokenFor(1, 'admin');
          await ok(call(first.url, 'POST', '/api/webhooks', { token: admin, body: { url: `${receiver.url}/kill` } }));
          const products = await addProducts([first.url], admin, 40, 'kill');
          await receiver.waitFor('/kill', 6, 30_000);
          first.process.kill('SIGKILL');
          assert.equal(await first.exited, null, 'killed, not exited');
          const before = receiver.at('/kill').length;
          const cutOff = receiver.at('/kill').filter((item) => !item.answered).length;
          const restarted = await startProcess(env);
          // Delivered means answered: a request whose 2xx the killed sender never read does not count.
          const acknowledged = () => receiver.at('/kill').filter((item) => item.answered);
          await waitFor(
            () => new Set(acknowledged().map((item) => item.event.data.id)).size >= products.length,
            30_000,
            `every product event delivered and answered (${new Set(acknowledged().map((item) => item.event.data.id)).size} of ${products.length})`,
          );
          const counts = countById(receiver.at('/kill').map((item) => item.event.id));
          assert.equal(counts.size, 40, 'every event, at least once');
          t.diagnostic(
            `${before} requests before the kill (${cutOff} cut off unanswered), ${receiver.at('/kill').length} in all; ${[...counts.values()].filter((n) => n > 1).length} events sent twice`,
          );
          const list = await call(restarted.url, 'GET', '/api/webhooks/1/deliveries?limit=100&status=pending', {
            token: admin,
          });
          await waitFor(
            async () =>
              (
                await call(restarted.url, 'GET', '/api/webhooks/1/deliveries?limit=100&status=succeeded', {
                  token: admin,
                })
              ).body.pagination.total === 40,
            30_000,
            `all deliveries succeeded (pending: ${list.body.pagination.total})`,
          );
          restarted.process.kill('SIGTERM');
          await restarted.exited;
        } finally {
          await receiver.close();
          await database.drop();
        }
      },
    );
  });
}
