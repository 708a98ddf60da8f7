import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, orderIn, pendingOrder, placeOrder, stockOf } from '../../../test/support/orders.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const fieldsOf = (res: { body: { error: { details?: { field: string }[] } } }) =>
  (res.body.error.details ?? []).map((d) => d.field);

for (const dialect of DIALECTS) {
  describe(`orders REST (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
    });
    after(() => t?.close());

    describe('POST /api/orders', () => {
      it('creates a pending order with 201, Location, amount from current prices and the pending links', async () => {
        const customer = await t.createUser();
        const a = await createProduct(t, { priceCents: 1999, stock: 5, name: 'Lamp' });
        const b = await createProduct(t, { priceCents: 250, stock: 7 });
        const res = await t.request('POST', '/api/orders', {
          token: customer.token,
          body: {
            items: [
              { productId: a.id, quantity: 2 },
              { productId: b.id, quantity: 3 },
            ],
            currency: 'USD',
          },
        });
        assert.equal(res.status, 201);
        const id = res.body.id;
        assert.equal(res.headers.get('location'), `/api/orders/${id}`);
        assert.equal(res.body.customerId, customer.id);
        assert.equal(res.body.status, 'pending');
        assert.equal(res.body.amount, 47.48);
        assert.equal(res.body.currency, 'USD');
        assert.deepEqual(res.body.items, [
          { productId: a.id, name: 'Lamp', quantity: 2, unitPrice: 19.99 },
          { productId: b.id, name: b.name, quantity: 3, unitPrice: 2.5 },
        ]);
        assert.match(res.body.createdAt, ISO);
        assert.equal(res.body.updatedAt, res.body.createdAt);
        assert.equal(res.body.paidAt, null);
        assert.equal(res.body.cancelledAt, null);
        assert.equal(res.body.refundedAt, null);
        assert.deepEqual(res.body._links, {
          self: { href: `/api/orders/${id}` },
          cancel: { href: `/api/orders/${id}/cancel`, method: 'POST' },
          pay: { href: `/api/orders/${id}/pay`, method: 'POST' },
          customer: { href: `/api/customers/${customer.id}`, method: 'GET' },
        });
        assert.equal(await stockOf(t, a.id), 3);
        assert.equal(await stockOf(t, b.id), 4);
      });

      it('keeps the price paid on the order when the product price changes later', async () => {
        const { order, product, customer } = await pendingOrder(t, { priceCents: 1000, quantity: 1 });
        await t.server.db.updateTable('products').set({ price_cents: 5000 }).where('id', '=', product.id).execute();
        const res = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
        assert.equal(res.body.amount, 10);
        assert.equal(res.body.items[0].unitPrice, 10);
      });

      it('answers 409 OUT_OF_STOCK naming every short item and changes nothing', async () => {
        const customer = await t.createUser();
        const plenty = await createProduct(t, { stock: 10 });
        const few = await createProduct(t, { stock: 2 });
        const none = await createProduct(t, { stock: 0 });
        const ordersBefore = await t.request('GET', '/api/orders', { token: customer.token });
        const res = await t.request('POST', '/api/orders', {
          token: customer.token,
          body: {
            items: [
              { productId: plenty.id, quantity: 4 },
              { productId: few.id, quantity: 3 },
              { productId: none.id, quantity: 1 },
            ],
          },
        });
        assert.equal(res.status, 409);
        assert.equal(res.body.error.code, 'OUT_OF_STOCK');
        assert.deepEqual(fieldsOf(res), ['items[1].quantity', 'items[2].quantity']);
        assert.match(res.body.error.details[0].message, /only 2 in stock/);
        assert.equal(await stockOf(t, plenty.id), 10);
        assert.equal(await stockOf(t, few.id), 2);
        assert.equal(await stockOf(t, none.id), 0);
        const ordersAfter = await t.request('GET', '/api/orders', { token: customer.token });
        assert.equal(ordersAfter.body.pagination.total, ordersBefore.body.pagination.total);
      });

      it('answers 422 naming the item for an unknown product, and takes no stock', async () => {
        const customer = await t.createUser();
        const known = await createProduct(t, { stock: 5 });
        const res = await t.request('POST', '/api/orders', {
          token: customer.token,
          body: {
            items: [
              { productId: known.id, quantity: 1 },
              { productId: 999999, quantity: 1 },
            ],
          },
        });
        assert.equal(res.status, 422);
        assert.equal(res.body.error.code, 'VALIDATION_ERROR');
        assert.deepEqual(fieldsOf(res), ['items[1].productId']);
        assert.equal(await stockOf(t, known.id), 5);
      });

      it('answers 422 for bad items, quantities, duplicates, currency and unknown fields', async () => {
        const customer = await t.createUser();
        const p = await createProduct(t);
        const cases: [unknown, string][] = [
          [{}, 'items'],
          [{ items: [] }, 'items'],
          [{ items: [{ productId: p.id, quantity: 0 }] }, 'items.0.quantity'],
          [{ items: [{ productId: p.id, quantity: -1 }] }, 'items.0.quantity'],
          [{ items: [{ productId: p.id, quantity: 1.5 }] }, 'items.0.quantity'],
          [{ items: [{ productId: p.id, quantity: '2' }] }, 'items.0.quantity'],
          [{ items: [{ productId: p.id }] }, 'items.0.quantity'],
          [{ items: [{ quantity: 1 }] }, 'items.0.productId'],
          [{ items: [{ productId: p.id, quantity: 1, price: 1 }] }, 'items.0.price'],
          [
            {
              items: [
                { productId: p.id, quantity: 1 },
                { productId: p.id, quantity: 2 },
              ],
            },
            'items[1].productId',
          ],
          [{ items: [{ productId: p.id, quantity: 1 }], currency: 'EUR' }, 'currency'],
          [{ items: [{ productId: p.id, quantity: 1 }], status: 'paid' }, 'status'],
        ];
        for (const [body, field] of cases) {
          const res = await t.request('POST', '/api/orders', { token: customer.token, body });
          assert.equal(res.status, 422, JSON.stringify(body));
          assert.equal(res.body.error.code, 'VALIDATION_ERROR');
          assert.ok(
            fieldsOf(res).includes(field),
            `${JSON.stringify(body)} → ${JSON.stringify(res.body.error.details)}`,
          );
        }
        assert.equal(await stockOf(t, p.id), 10);
      });

      it('lets an admin order for a customer, but not a user for someone else', async () => {
        const customer = await t.createUser();
        const other = await t.createUser();
        const p = await createProduct(t);
        const body = { items: [{ productId: p.id, quantity: 1 }], customerId: customer.id };
        const byAdmin = await t.request('POST', '/api/orders', { token: t.adminToken, body });
        assert.equal(byAdmin.status, 201);
        assert.equal(byAdmin.body.customerId, customer.id);
        const byOther = await t.request('POST', '/api/orders', { token: other.token, body });
        assert.equal(byOther.status, 403);
        assert.equal(byOther.body.error.code, 'FORBIDDEN');
        const forOneself = await t.request('POST', '/api/orders', {
          token: other.token,
          body: { ...body, customerId: other.id },
        });
        assert.equal(forOneself.status, 201);
        const unknownCustomer = await t.request('POST', '/api/orders', {
          token: t.adminToken,
          body: { ...body, customerId: 999999 },
        });
        assert.equal(unknownCustomer.status, 422);
        assert.deepEqual(fieldsOf(unknownCustomer), ['customerId']);
      });

      it('answers 401 without a token', async () => {
        const p = await createProduct(t);
        const res = await t.request('POST', '/api/orders', { body: { items: [{ productId: p.id, quantity: 1 }] } });
        assert.equal(res.status, 401);
        assert.equal(res.body.error.code, 'UNAUTHORIZED');
        assert.equal(await stockOf(t, p.id), 10);
      });
    });

    describe('GET /api/orders/{id}', () => {
      it('shows the order to its customer and to an admin, with an ETag', async () => {
        const { order, customer } = await pendingOrder(t);
        const own = await t.request('GET', `/api/orders/${order.id}`, { token: customer.token });
        assert.equal(own.status, 200);
        assert.deepEqual(own.body, order);
        assert.ok(own.headers.get('etag'));
        const again = await t.request('GET', `/api/orders/${order.id}`, {
          token: customer.token,
          headers: { 'if-none-match': own.headers.get('etag')! },
        });
        assert.equal(again.status, 304);
        const admin = await t.request('GET', `/api/orders/${order.id}`, { token: t.adminToken });
        assert.equal(admin.status, 200);
      });

      it('builds its links under the prefix the request used', async () => {
        const { order, customer } = await pendingOrder(t);
        const res = await t.request('GET', `/api/v2/orders/${order.id}`, { token: customer.token });
        assert.equal(res.status, 200);
        assert.equal(res.body._links.self.href, `/api/v2/orders/${order.id}`);
        assert.equal(res.body._links.pay.href, `/api/v2/orders/${order.id}/pay`);
        assert.equal(res.body._links.customer.href, `/api/v2/customers/${customer.id}`);
      });

      it("reads another user's order as 404, and bad or unknown ids as 404", async () => {
        const { order } = await pendingOrder(t);
        const stranger = await t.createUser();
        for (const path of [`/api/orders/${order.id}`, '/api/orders/999999', '/api/orders/abc', '/api/orders/0']) {
          const res = await t.request('GET', path, { token: stranger.token });
          assert.equal(res.status, 404, path);
          assert.equal(res.body.error.code, 'NOT_FOUND');
        }
        assert.equal((await t.request('GET', `/api/orders/${order.id}`)).status, 401);
      });
    });

    describe('GET /api/orders', () => {
      it("lists the caller's own orders newest first in a page envelope; an admin sees everyone's", async () => {
        const customer = await t.createUser();
        const p = await createProduct(t, { stock: 100 });
        const ids: number[] = [];
        for (let i = 0; i < 3; i += 1)
          ids.push((await placeOrder(t, customer.token, [{ productId: p.id, quantity: 1 }])).body.id);
        await pendingOrder(t); // someone else's
        const res = await t.request('GET', '/api/orders?limit=2', { token: customer.token });
        assert.equal(res.status, 200);
        assert.deepEqual(
          res.body.data.map((o: { id: number }) => o.id),
          [ids[2], ids[1]],
        );
        assert.deepEqual(res.body.pagination, {
          page: 1,
          limit: 2,
          total: 3,
          totalPages: 2,
          hasNext: true,
          hasPrev: false,
          nextCursor: res.body.pagination.nextCursor,
        });
        assert.equal(typeof res.body.pagination.nextCursor, 'string');
        assert.ok(res.body.data[0]._links.pay);
        const page2 = await t.request('GET', '/api/orders?limit=2&page=2', { token: customer.token });
        assert.deepEqual(
          page2.body.data.map((o: { id: number }) => o.id),
          [ids[0]],
        );

        const all = await t.request('GET', '/api/orders?limit=100', { token: t.adminToken });
        assert.ok(all.body.pagination.total > 3);
        assert.ok(all.body.data.some((o: { customerId: number }) => o.customerId !== customer.id));
        const forCustomer = await t.request('GET', `/api/orders?customerId=${customer.id}`, { token: t.adminToken });
        assert.equal(forCustomer.body.pagination.total, 3);
      });

      it('filters by status, defaults to 20 per page, caps the limit at 100 and rejects a bad status', async () => {
        const { customer } = await orderIn(t, 'paid');
        const p = await createProduct(t);
        await placeOrder(t, customer.token, [{ productId: p.id, quantity: 1 }]);
        const paid = await t.request('GET', '/api/orders?status=paid', { token: customer.token });
        assert.deepEqual(
          paid.body.data.map((o: { status: string }) => o.status),
          ['paid'],
        );
        const all = await t.request('GET', '/api/orders', { token: customer.token });
        assert.equal(all.body.pagination.limit, 20);
        const capped = await t.request('GET', '/api/orders?limit=1000', { token: customer.token });
        assert.equal(capped.body.pagination.limit, 100);
        const bad = await t.request('GET', '/api/orders?status=shipped', { token: customer.token });
        assert.equal(bad.status, 422);
        assert.deepEqual(fieldsOf(bad), ['status']);
        const notNumber = await t.request('GET', '/api/orders?page=x', { token: customer.token });
        assert.equal(notNumber.status, 422);
      });

      it("refuses a user listing another customer's orders (403) and anonymous callers (401)", async () => {
        const customer = await t.createUser();
        const other = await t.createUser();
        const res = await t.request('GET', `/api/orders?customerId=${other.id}`, { token: customer.token });
        assert.equal(res.status, 403);
        const own = await t.request('GET', `/api/orders?customerId=${customer.id}`, { token: customer.token });
        assert.equal(own.status, 200);
        assert.equal((await t.request('GET', '/api/orders')).status, 401);
      });
    });
  });
}
