import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, orderIn, stockOf } from '../../../test/support/orders.ts';

const RACERS = 20;
const statuses = (responses: { status: number }[]) => responses.map((r) => r.status).sort();

for (const dialect of DIALECTS) {
  describe(`order races (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    const orderRow = (id: number) =>
      t.server.db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    it(`lets exactly one of ${RACERS} concurrent pays succeed; the rest get 409 INVALID_STATE`, async () => {
      const { order, customer } = await orderIn(t, 'pending');
      const responses = await Promise.all(
        Array.from({ length: RACERS }, () =>
          t.request('POST', `/api/orders/${order.id}/pay`, { token: customer.token }),
        ),
      );
      assert.deepEqual(statuses(responses), [200, ...Array(RACERS - 1).fill(409)]);
      assert.ok(responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'INVALID_STATE'));
      const row = await orderRow(order.id);
      assert.equal(row.status, 'paid');
      assert.equal(row.paid_at, responses.find((r) => r.status === 200)!.body.paidAt);
    });

    it('decides concurrent pays and cancels on one order: one winner, and stock returned only if cancel won', async () => {
      const { order, customer, product } = await orderIn(t, 'pending', { stock: 10, quantity: 3 });
      assert.equal(await stockOf(t, product.id), 7);
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          t.request('POST', `/api/orders/${order.id}/${i % 2 === 0 ? 'pay' : 'cancel'}`, { token: customer.token }),
        ),
      );
      const winners = responses.filter((r) => r.status === 200);
      assert.equal(winners.length, 1);
      assert.equal(responses.filter((r) => r.status === 409).length, RACERS - 1);
      const row = await orderRow(order.id);
      assert.equal(row.status, winners[0]!.body.status);
      assert.equal(await stockOf(t, product.id), row.status === 'cancelled' ? 10 : 7);
      assert.equal(row.status === 'cancelled' ? row.paid_at : row.cancelled_at, null);
    });

    it('returns the stock of concurrently cancelled or refunded orders exactly once', async () => {
      const cancelled = await orderIn(t, 'pending', { stock: 10, quantity: 4 });
      const refunded = await orderIn(t, 'paid', { stock: 10, quantity: 4 });
      const responses = await Promise.all([
        ...Array.from({ length: RACERS }, () =>
          t.request('POST', `/api/orders/${cancelled.order.id}/cancel`, { token: cancelled.customer.token }),
        ),
        ...Array.from({ length: RACERS }, () =>
          t.request('POST', `/api/orders/${refunded.order.id}/refund`, { token: t.adminToken }),
        ),
      ]);
      assert.equal(responses.filter((r) => r.status === 200).length, 2);
      assert.equal(await stockOf(t, cancelled.product.id), 10);
      assert.equal(await stockOf(t, refunded.product.id), 10);
    });

    it(`never oversells: ${RACERS} concurrent orders for the last 5 units give 5 orders and 15 OUT_OF_STOCK`, async () => {
      const product = await createProduct(t, { stock: 5, priceCents: 700 });
      const buyers = await Promise.all(Array.from({ length: RACERS }, () => t.createUser()));
      const responses = await Promise.all(
        buyers.map((buyer) =>
          t.request('POST', '/api/orders', {
            token: buyer.token,
            body: { items: [{ productId: product.id, quantity: 1 }] },
          }),
        ),
      );
      assert.deepEqual(statuses(responses), [...Array(5).fill(201), ...Array(RACERS - 5).fill(409)]);
      assert.ok(responses.filter((r) => r.status === 409).every((r) => r.body.error.code === 'OUT_OF_STOCK'));
      assert.equal(await stockOf(t, product.id), 0);
      const lines = await t.server.db
        .selectFrom('order_items')
        .select('quantity')
        .where('product_id', '=', product.id)
        .execute();
      assert.equal(
        lines.reduce((sum, line) => sum + Number(line.quantity), 0),
        5,
      );
      const orders = await t.server.db
        .selectFrom('orders')
        .innerJoin('order_items', 'order_items.order_id', 'orders.id')
        .select('orders.amount_cents')
        .where('order_items.product_id', '=', product.id)
        .execute();
      assert.equal(orders.length, 5);
      assert.ok(orders.every((o) => Number(o.amount_cents) === 700));
    });

    it('neither loses nor invents stock when concurrent orders name the same products in opposite orders', async () => {
      const a = await createProduct(t, { stock: 100 });
      const b = await createProduct(t, { stock: 100 });
      const customer = await t.createUser();
      const responses = await Promise.all(
        Array.from({ length: RACERS }, (_, i) =>
          t.request('POST', '/api/orders', {
            token: customer.token,
            body: {
              items:
                i % 2 === 0
                  ? [
                      { productId: a.id, quantity: 2 },
                      { productId: b.id, quantity: 1 },
                    ]
                  : [
                      { productId: b.id, quantity: 1 },
                      { productId: a.id, quantity: 2 },
                    ],
            },
          }),
        ),
      );
      assert.deepEqual(statuses(responses), Array(RACERS).fill(201));
      assert.equal(await stockOf(t, a.id), 100 - 2 * RACERS);
      assert.equal(await stockOf(t, b.id), 100 - RACERS);
      // Half of them cancelled concurrently with the other half paid: stock comes back for the cancelled only.
      const actions = await Promise.all(
        responses.map((r, i) =>
          t.request('POST', `/api/orders/${r.body.id}/${i % 2 === 0 ? 'cancel' : 'pay'}`, { token: customer.token }),
        ),
      );
      assert.deepEqual(statuses(actions), Array(RACERS).fill(200));
      assert.equal(await stockOf(t, a.id), 100 - RACERS);
      assert.equal(await stockOf(t, b.id), 100 - RACERS / 2);
    });
  });
}
