import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `include=customer` and `include=items.product` on orders (DECISIONS §12). */
for (const dialect of DIALECTS) {
  describe(`include and _embedded: orders (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let ann: { id: number; token: string; user: Json };
    let ben: { id: number; token: string; user: Json };
    let lamp: { id: number };
    let desk: { id: number };
    let annsOrder: number;

    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      ann = await t.createUser({ name: 'Ann' });
      ben = await t.createUser({ name: 'Ben' });
      lamp = await createProduct(t, { name: 'Lamp', priceCents: 1250, stock: 1000 });
      desk = await createProduct(t, { name: 'Desk', priceCents: 9900, stock: 1000 });
      const items = [
        { productId: desk.id, quantity: 1 },
        { productId: lamp.id, quantity: 2 },
      ];
      annsOrder = (await placeOrder(t, ann.token, items)).body.id;
      for (let i = 0; i < 50; i += 1) await placeOrder(t, (i % 2 === 0 ? ben : ann).token, items);
    });
    after(() => t?.close());

    const get = async (path: string, token: string) => {
      const res = await t.request('GET', path, { token });
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body as Json;
    };

    it("embeds each line's product in the line, as the version's product read shows it", async () => {
      for (const [prefix, created] of [
        ['/api/v1', 'created_at'],
        ['/api/v2', 'createdAt'],
      ] as const) {
        const order = await get(`${prefix}/orders/${annsOrder}?include=items.product`, ann.token);
        assert.deepEqual(
          (order.items as Json[]).map((item) => [item.productId, item._embedded.product.name]),
          [
            [desk.id, 'Desk'],
            [lamp.id, 'Lamp'],
          ],
        );
        const product = order.items[0]._embedded.product;
        assert.equal(product.price, 99);
        assert.ok(created in product, `${prefix}: ${JSON.stringify(product)}`);
        assert.deepEqual(product._links, { self: { href: `${prefix}/products/${desk.id}` } });
        assert.equal(order._embedded, undefined);
      }
    });

    it('embeds the customer for the customer themselves, with the figures of GET /customers/{id}', async () => {
      const order = await get(`/api/orders/${annsOrder}?include=customer`, ann.token);
      const direct = await get(`/api/customers/${ann.id}`, ann.token);
      assert.deepEqual(order._embedded.customer, direct);
      assert.equal(order._embedded.customer.email, ann.user.email);
      const mine = await get(`/api/orders?include=customer&limit=100`, ben.token);
      assert.equal(mine.data.length, 25);
      assert.ok((mine.data as Json[]).every((o) => o._embedded.customer.id === ben.id));
    });

    it("embeds every order's customer for an admin, and refuses others' customers to anyone else", async () => {
      const all = await get(`/api/orders?include=customer,items.product&limit=100`, t.adminToken);
      assert.equal(all.data.length, 51);
      for (const order of all.data as Json[]) {
        assert.equal(order._embedded.customer.id, order.customerId);
        assert.equal(order._embedded.customer.orderCount, order.customerId === ann.id ? 26 : 25);
        assert.ok((order.items as Json[]).every((item) => item._embedded.product.id === item.productId));
      }
      // The one rule below both: a customer record is the customer's or an admin's to read.
      const { customers } = t.server.app.services;
      const asBen = { userId: ben.id, role: 'user' as const };
      assert.deepEqual(
        (await customers.findCustomersByIds(asBen, [ann.id, ben.id])).map((c) => c.id),
        [ben.id],
      );
      const asAdmin = { userId: 1, role: 'admin' as const };
      assert.deepEqual(
        (await customers.findCustomersByIds(asAdmin, [ann.id, ben.id])).map((c) => c.id).sort((a, b) => a - b),
        [ann.id, ben.id].sort((a, b) => a - b),
      );
    });

    it('refuses an unknown relation, the lines alone and a third level with 422 naming include', async () => {
      for (const include of ['items', 'payments', 'customer.orders', 'items.product.category', 'items.customer']) {
        for (const path of [`/api/orders?include=${include}`, `/api/orders/${annsOrder}?include=${include}`]) {
          const res = await t.request('GET', path, { token: ann.token });
          assert.equal(res.status, 422, `${path}: ${res.text}`);
          assert.deepEqual(
            res.body.error.details.map((d: Json) => d.field),
            ['include'],
          );
        }
      }
    });

    it('runs as many statements for 5 orders as for 50 with include=customer,items.product', async () => {
      const count = async (limit: number) => {
        const { result, statements } = await statementsOf(t.server.db, () =>
          t.request('GET', `/api/orders?limit=${limit}&include=customer,items.product`, { token: t.adminToken }),
        );
        assert.equal(result.status, 200);
        assert.equal(result.body.data.length, limit);
        return statements;
      };
      const five = await count(5);
      const fifty = await count(50);
      assert.equal(fifty.length, five.length, `${five.join('\n')}\n---\n${fifty.join('\n')}`);
    });
  });
}
