import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';

/** `GET /customers` (DECISIONS §20): admins list the users who have orders, by cursor. */
for (const dialect of DIALECTS) {
  describe(`GET /customers (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    it('lists only users with orders, with their sums, a page at a time by cursor', async () => {
      const product = await createProduct(t, { priceCents: 250, stock: 100 });
      const buyers = [await t.createUser(), await t.createUser(), await t.createUser()];
      await t.createUser(); // no orders: not a customer
      for (const [index, buyer] of buyers.entries()) {
        const order = await placeOrder(t, buyer.token, [{ productId: product.id, quantity: index + 1 }]);
        if (index !== 1) await t.request('POST', `/api/v2/orders/${order.body.id}/pay`, { token: buyer.token });
      }
      const first = await t.request('GET', '/api/v2/customers?limit=2', { token: t.adminToken });
      assert.equal(first.status, 200);
      assert.equal(first.body.data.length, 2);
      const second = await t.request('GET', `/api/v2/customers?limit=2&cursor=${first.body.nextCursor}`, {
        token: t.adminToken,
      });
      assert.equal(second.status, 200);
      assert.equal(second.body.nextCursor, null);
      const all = [...first.body.data, ...second.body.data];
      assert.deepEqual(
        all.map((customer: { id: number }) => customer.id),
        buyers.map((buyer) => buyer.id),
      );
      assert.deepEqual(
        all.map((customer: { orderCount: number; totalSpent: number }) => [customer.orderCount, customer.totalSpent]),
        [
          [1, 2.5],
          [1, 0],
          [1, 7.5],
        ],
      );
      assert.equal(all[0]._links.self.href, `/api/v2/customers/${buyers[0]!.id}`);
    });

    it('is for admins, and refuses a cursor that is not one', async () => {
      const person = await t.createUser();
      assert.equal((await t.request('GET', '/api/v2/customers', { token: person.token })).status, 403);
      assert.equal((await t.request('GET', '/api/v2/customers')).status, 401);
      const bad = await t.request('GET', '/api/v2/customers?cursor=nonsense', { token: t.adminToken });
      assert.equal(bad.status, 422);
      assert.equal(bad.body.error.details[0].field, 'cursor');
    });
  });
}
