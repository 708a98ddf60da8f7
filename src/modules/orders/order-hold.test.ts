import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildServer } from '../../../test/support/child-server.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import {
  call,
  insertProducts,
  openDatabase,
  signUpUsers,
  startProcess,
  waitFor,
} from '../../../test/reliability/harness.test-support.ts';
import {
  QUIET_ENV,
  createProduct,
  orderIn,
  placeOrder,
  startInstanceOn,
  stockOf,
  type Instance,
} from '../../../test/support/orders.ts';

/** 0.05 minutes: 3 s, long enough to pay an order within its hold on a busy machine. */
const SHORT_HOLD = {
  ...QUIET_ENV,
  ORDER_HOLD_WORKER: 'true',
  ORDER_HOLD_MINUTES: '0.05',
  ORDER_SWEEP_INTERVAL_MS: '20',
};
/** The default hold, and a sweep that runs once at start (before any order exists): the tests call it themselves. */
const MANUAL_SWEEP = { ...QUIET_ENV, ORDER_HOLD_WORKER: 'true', ORDER_SWEEP_INTERVAL_MS: '3600000' };
const RACERS = 20;

/**
 * Two instances on one database, as behind a load balancer, in this process, so a test can run their
 * sweeps at the same moment. Not on SQLite: node:sqlite waits for a lock synchronously, blocking the
 * one thread the lock holder needs to finish, so two in-process instances deadlock until the busy
 * timeout. There the racers are two sweeps of one instance, whose queries still interleave between
 * transactions (both read the same overdue ids before either cancels); two processes on one SQLite
 * file are the first test's.
 */
async function twoRacers(
  dialect: (typeof DIALECTS)[number],
  env: Record<string, string>,
): Promise<[TestServer, Instance | TestServer, () => Promise<void>]> {
  const t = await startTestServer(dialect, env);
  if (dialect.name === 'sqlite') return [t, t, () => t.close()];
  try {
    const second = await startInstanceOn(t, env);
    return [
      t,
      second,
      async () => {
        await second.close();
        await t.close();
      },
    ];
  } catch (error) {
    await t.close();
    throw error;
  }
}

const orderRow = (t: TestServer, id: number) =>
  t.server.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

/** Moves orders' creation back past the default hold of 30 minutes, as if placed 31 minutes ago. */
async function backdate(t: TestServer, ids: number[]): Promise<void> {
  await t.server.db
    .updateTable('orders')
    .set({ created_at: new Date(Date.now() - 31 * 60_000).toISOString() })
    .where('id', 'in', ids)
    .execute();
}

/** Runs the sweep of every instance at the same moment until none finds more; the cancellations each made. */
async function sweepConcurrently(...servers: { server: TestServer['server'] }[]): Promise<number[]> {
  return Promise.all(
    servers.map(async ({ server }) => {
      let total = 0;
      for (;;) {
        const { cancelled, more } = await server.app.services.orders.expireOverdueOrders();
        total += cancelled;
        if (!more) return total;
      }
    }),
  );
}

for (const dialect of DIALECTS) {
  describe(`the order hold (${dialect.name})`, { skip: dialect.skip }, () => {
    it('cancels a pending order once its hold runs out, with two server processes sweeping: one cancellation, stock returned once, cancelledAt set, a paid order untouched', async () => {
      const database = await dialect.createDatabase();
      const db = openDatabase(database.url);
      const servers: ChildServer[] = [];
      try {
        const env = { DATABASE_URL: database.url, ...SHORT_HOLD };
        const one = await startProcess(env);
        servers.push(one);
        const two = await startProcess(env);
        servers.push(two);
        const [product] = await insertProducts(db, 1, 10);
        const [customer] = await signUpUsers(one.url, 1, `hold-${dialect.name}-${Date.now()}`);
        const place = (base: string, quantity: number) =>
          call(base, 'POST', '/api/orders', {
            token: customer!.token,
            body: { items: [{ productId: product!.id, quantity }] },
          });
        const unpaid = (await place(one.url, 3)).body;
        const paid = (await place(two.url, 2)).body;
        const payment = await call(one.url, 'POST', `/api/orders/${paid.id}/pay`, { token: customer!.token });
        assert.equal(payment.status, 200, 'paid within its hold');
        const stock = async () =>
          Number(
            (await db.selectFrom('products').select('stock').where('id', '=', product!.id).executeTakeFirstOrThrow())
              .stock,
          );
        assert.equal(await stock(), 5);

        const status = async (id: number) =>
          (await db.selectFrom('orders').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
        await waitFor(async () => (await status(unpaid.id)) === 'cancelled', 30_000, 'the sweep');
        // Both processes keep sweeping every 20 ms for a while: nothing more may happen.
        await sleep(500);

        const read = await call(two.url, 'GET', `/api/orders/${unpaid.id}`, { token: customer!.token });
        assert.equal(read.body.status, 'cancelled');
        assert.ok(read.body.cancelledAt, 'cancelledAt is set');
        assert.equal(read.body.paidAt, null);
        const heldMs = Date.parse(read.body.cancelledAt) - Date.parse(read.body.createdAt);
        assert.ok(heldMs >= 3000, `held its stock for the whole hold (${heldMs} ms)`);
        assert.equal(await stock(), 8, 'the 3 units came back exactly once; the paid 2 stay sold');
        assert.equal(await status(paid.id), 'paid');
        const cancellations = [...one.lines, ...two.lines].filter((line) => line.includes('whose stock hold ran out'));
        assert.equal(cancellations.length, 1, `one cancellation in all: ${cancellations.join('\n')}`);
        assert.match(cancellations[0]!, /Cancelled 1 pending order/);

        // The customer cancelling afterwards finds it cancelled already: no second return of stock.
        const late = await call(one.url, 'POST', `/api/orders/${unpaid.id}/cancel`, { token: customer!.token });
        assert.equal(late.status, 409);
        assert.equal(late.body.error.code, 'INVALID_STATE');
        assert.equal(await stock(), 8);
        for (const server of [one, two]) server.process.kill('SIGTERM');
        assert.deepEqual(await Promise.all([one.exited, two.exited]), [0, 0], 'both stop cleanly, sweep included');
      } finally {
        // A failed assertion leaves them running, and their pipes would keep the test process alive.
        for (const server of servers) if (server.process.exitCode === null) server.process.kill('SIGKILL');
        await db.destroy();
        await database.drop();
      }
    });

    it(`cancels each of ${RACERS} overdue orders exactly once when two instances sweep at the same moment, and leaves other states alone`, async (ctx) => {
      const [t, second, close] = await twoRacers(dialect, MANUAL_SWEEP);
      try {
        const product = await createProduct(t, { stock: 100 });
        const customer = await t.createUser();
        const overdue: number[] = [];
        for (let i = 0; i < RACERS; i += 1)
          overdue.push((await placeOrder(t, customer.token, [{ productId: product.id, quantity: 2 }])).body.id);
        const recent = (await placeOrder(t, customer.token, [{ productId: product.id, quantity: 1 }])).body
          .id as number;
        const others = await Promise.all(
          (['paid', 'cancelled', 'refunded'] as const).map((status) => orderIn(t, status, { stock: 10, quantity: 4 })),
        );
        await backdate(t, [...overdue, ...others.map((o) => o.order.id)]);

        const counts = await sweepConcurrently(t, second);
        assert.equal(counts[0]! + counts[1]!, RACERS, `cancellations by the two instances: ${counts.join(' + ')}`);
        ctx.diagnostic(`cancellations by the two sweeps: ${counts.join(' + ')}`);
        assert.equal(
          await stockOf(t, product.id),
          100 - 1,
          'every overdue order returned its 2 units once; the recent one holds its unit',
        );
        for (const id of overdue) {
          const row = await orderRow(t, id);
          assert.equal(row.status, 'cancelled');
          assert.ok(row.cancelled_at);
        }
        assert.equal((await orderRow(t, recent)).status, 'pending', 'an order within its hold stays pending');
        const [paid, cancelled, refunded] = others;
        assert.equal((await orderRow(t, paid!.order.id)).status, 'paid');
        assert.equal(await stockOf(t, paid!.product.id), 6);
        assert.equal((await orderRow(t, cancelled!.order.id)).status, 'cancelled');
        assert.equal(await stockOf(t, cancelled!.product.id), 10);
        assert.equal((await orderRow(t, refunded!.order.id)).status, 'refunded');
        assert.equal(await stockOf(t, refunded!.product.id), 10);
        assert.deepEqual(await sweepConcurrently(t, second), [0, 0], 'a second sweep finds nothing');
      } finally {
        await close();
      }
    });

    it(`lets either the payment or the expiry win when ${RACERS} overdue orders are paid while two instances sweep, never both`, async (ctx) => {
      const [t, second, close] = await twoRacers(dialect, MANUAL_SWEEP);
      try {
        const product = await createProduct(t, { stock: 100 });
        const customer = await t.createUser();
        const ids: number[] = [];
        for (let i = 0; i < RACERS; i += 1)
          ids.push((await placeOrder(t, customer.token, [{ productId: product.id, quantity: 3 }])).body.id);
        await backdate(t, ids);

        // Payments newest first, the sweeps (oldest first) from the moment the first payment is answered:
        // the two meet somewhere in the middle, whatever the speed of the machine.
        let firstAnswered!: () => void;
        const sweeps = new Promise<void>((resolve) => (firstAnswered = resolve)).then(() =>
          sweepConcurrently(t, second),
        );
        const [payments, counts] = await Promise.all([
          Promise.all(
            [...ids].reverse().map(async (id, i) => {
              const answer = await (i % 2 ? second : t).request('POST', `/api/orders/${id}/pay`, {
                token: customer.token,
              });
              firstAnswered();
              return [id, answer] as const;
            }),
          ).then((answers) => new Map(answers)),
          sweeps,
        ]);
        let paidCount = 0;
        for (const id of ids) {
          const row = await orderRow(t, id);
          const answer = payments.get(id)!;
          if (answer.status === 200) {
            paidCount += 1;
            assert.equal(row.status, 'paid', `order ${id} was paid`);
            assert.equal(row.cancelled_at, null, `order ${id} is not also cancelled`);
          } else {
            assert.equal(answer.status, 409, `order ${id}: ${answer.text}`);
            assert.equal(answer.body.error.code, 'INVALID_STATE');
            assert.equal(row.status, 'cancelled', `order ${id} expired`);
            assert.equal(row.paid_at, null, `order ${id} is not also paid`);
          }
        }
        assert.equal(counts[0]! + counts[1]!, RACERS - paidCount, 'one cancellation per order that was not paid');
        assert.equal(await stockOf(t, product.id), 100 - 3 * paidCount, 'stock comes back for the expired orders only');
        ctx.diagnostic(`${paidCount} paid, ${RACERS - paidCount} expired (sweeps: ${counts.join(' + ')})`);
      } finally {
        await close();
      }
    });
  });
}
