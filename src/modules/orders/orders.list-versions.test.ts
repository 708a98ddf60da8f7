import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const PREFIXES = [
  ['/api/v1', 'created_at'],
  ['/api/v2', 'createdAt'],
] as const;

/**
 * The orders list under /api/v1 and /api/v2 alike (DECISIONS §12): `include=customer,items.product`
 * embeds each object as its own read under that version shows it (its `_links`, v1's `created_at`), an
 * unknown or third-level relation is a 422 naming `include`, and a customer naming another customer's
 * `customerId` in any form is 403.
 */
for (const dialect of DIALECTS) {
  describe(
    `orders list, v1 and v2: include and another customer's id (${dialect.name})`,
    { skip: dialect.skip },
    () => {
      let t: TestServer;
      let ann: { id: number; token: string };
      let ben: { id: number; token: string };
      let lamp: { id: number };

      const get = async (path: string, token: string) => {
        const res = await t.request('GET', path, { token });
        assert.equal(res.status, 200, `${path}: ${res.text}`);
        return res.body as Json;
      };

      before(async () => {
        t = await startTestServer(dialect, QUIET_ENV);
        ann = await t.createUser({ name: 'Ann' });
        ben = await t.createUser({ name: 'Ben' });
        lamp = await createProduct(t, { name: 'Lamp', priceCents: 1250, stock: 1000 });
        const desk = await createProduct(t, { name: 'Desk', priceCents: 9900, stock: 1000 });
        for (let i = 0; i < 4; i += 1) {
          await placeOrder(t, (i % 2 === 0 ? ann : ben).token, [
            { productId: lamp.id, quantity: 1 + i },
            { productId: desk.id, quantity: 1 },
          ]);
        }
      });
      after(() => t?.close());

      for (const [prefix, created] of PREFIXES) {
        it(`embeds each order's customer and each line's product on the list, as their own reads (${prefix})`, async () => {
          for (const token of [ann.token, t.adminToken]) {
            const list = await get(`${prefix}/orders?include=customer,items.product`, token);
            assert.equal(list.data.length, token === ann.token ? 2 : 4);
            for (const order of list.data as Json[]) {
              const customer = order._embedded.customer;
              assert.deepEqual(customer, await get(`${prefix}/customers/${order.customerId}`, token));
              assert.deepEqual(customer._links.self, { href: `${prefix}/customers/${order.customerId}` });
              for (const item of order.items as Json[]) {
                const product = item._embedded.product;
                assert.deepEqual(product, await get(`${prefix}/products/${item.productId}`, token));
                assert.deepEqual(product._links, { self: { href: `${prefix}/products/${item.productId}` } });
                assert.ok(created in product, `${prefix}: ${JSON.stringify(product)}`);
              }
            }
          }
        });

        it(`refuses an unknown relation, the lines alone and a third level with 422 naming include (${prefix})`, async () => {
          for (const include of ['items', 'payments', 'customer.orders', 'items.product.category']) {
            const res = await t.request('GET', `${prefix}/orders?include=${include}`, { token: ann.token });
            assert.equal(res.status, 422, `${include}: ${res.text}`);
            assert.deepEqual(
              res.body.error.details.map((d: Json) => d.field),
              ['include'],
              include,
            );
          }
        });

        it(`answers 403 to a customer naming another customer's id, in any form, and 200 for their own (${prefix})`, async () => {
          for (const query of [
            `customerId=${ben.id}`,
            `customerId[eq]=${ben.id}`,
            `customerId[in]=${ann.id},${ben.id}`,
            `customerId[in]=${ben.id}`,
            `customerId[ne]=${ann.id}`,
            `customerId[ne]=${ben.id}`,
            `status=pending&customerId=${ben.id}`,
          ]) {
            const res = await t.request('GET', `${prefix}/orders?${query}`, { token: ann.token });
            assert.equal(res.status, 403, `${query}: ${res.text}`);
            assert.equal(res.body.error.code, 'FORBIDDEN', query);
          }
          for (const query of [`customerId=${ann.id}`, `customerId[eq]=${ann.id}`, '']) {
            const own = await get(`${prefix}/orders?${query}`, ann.token);
            assert.deepEqual([...new Set((own.data as Json[]).map((o) => o.customerId))], [ann.id], query);
          }
          const others = await get(`${prefix}/orders?customerId=${ben.id}`, t.adminToken);
          assert.equal(others.data.length, 2);
        });
      }
    },
  );
}
