import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';

for (const dialect of DIALECTS) {
  describe(`customers REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    it('sums the customer: every order counted, only paid orders as money spent', async () => {
      const customer = await t.createUser({ name: 'Grace Hopper' });
      const product = await createProduct(t, { priceCents: 1005, stock: 100 });
      const order = async (quantity: number, ...actions: [string, string][]) => {
        const res = await placeOrder(t, customer.token, [{ productId: product.id, quantity }]);
        for (const [action, token] of actions)
          assert.equal((await t.request('POST', `/api/orders/${res.body.id}/${action}`, { token })).status, 200);
      };
      await order(1, ['pay', customer.token]); // 10.05 paid
      await order(2, ['pay', customer.token]); // 20.10 paid
      await order(3); // pending: not spent
      await order(4, ['cancel', customer.token]); // cancelled: not spent
      await order(5, ['pay', customer.token], ['refund', t.adminToken]); // refunded: given back

      const res = await t.request('GET', `/api/customers/${customer.id}`, { token: customer.token });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        id: customer.id,
        name: 'Grace Hopper',
        email: customer.user.email,
        orderCount: 5,
        totalSpent: 30.15,
        currency: 'USD',
        _links: {
          self: { href: `/api/customers/${customer.id}` },
          orders: { href: `/api/orders?customerId=${customer.id}` },
        },
      });
      const orders = await t.request('GET', res.body._links.orders.href, { token: customer.token });
      assert.equal(orders.body.pagination.total, 5);
      assert.ok(res.headers.get('etag'));
    });

    it('shows a user with no orders as a customer with zero totals, to an admin', async () => {
      const customer = await t.createUser();
      const res = await t.request('GET', `/api/customers/${customer.id}`, { token: t.adminToken });
      assert.equal(res.status, 200);
      assert.equal(res.body.orderCount, 0);
      assert.equal(res.body.totalSpent, 0);
    });

    it('is the customer or an admin only: 403 for another user, 401 anonymous, 404 for unknown or bad ids', async () => {
      const customer = await t.createUser();
      const other = await t.createUser();
      const forbidden = await t.request('GET', `/api/customers/${customer.id}`, { token: other.token });
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.body.error.code, 'FORBIDDEN');
      assert.equal((await t.request('GET', `/api/customers/${customer.id}`)).status, 401);
      for (const id of ['999999', 'abc', '0']) {
        const res = await t.request('GET', `/api/customers/${id}`, { token: t.adminToken });
        assert.equal(res.status, 404, id);
        assert.equal(res.body.error.code, 'NOT_FOUND');
      }
    });

    it("is linked from an order's customer link", async () => {
      const customer = await t.createUser();
      const product = await createProduct(t);
      const order = await placeOrder(t, customer.token, [{ productId: product.id, quantity: 1 }]);
      const link = order.body._links.customer;
      const res = await t.request(link.method, link.href, { token: customer.token });
      assert.equal(res.status, 200);
      assert.equal(res.body.id, customer.id);
    });
  });
}
