import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';

interface ListedOrder {
  id: number;
  customerId: number;
  status: string;
  amount: number;
  paidAt: string | null;
  createdAt: string;
}

/** DECISIONS §12 on the orders list: filters, sorts, counts and cursors, a customer kept to their own orders. */
for (const dialect of DIALECTS) {
  describe(`orders list queries (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };
    let everyone: ListedOrder[];

    const list = async (query: string, token = t.adminToken, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}/orders?${query}`, { token });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as { data: ListedOrder[]; pagination: Record<string, unknown> };
    };
    const ids = async (query: string, token = t.adminToken) =>
      (await list(`limit=100&${query}`, token)).data.map((o) => o.id);
    const idsOf = (orders: ListedOrder[]) => orders.map((o) => o.id);

    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      alice = await t.createUser();
      bob = await t.createUser();
      const product = await createProduct(t, { priceCents: 1250, stock: 1000 });
      for (const [index, quantity] of [1, 2, 3, 4, 2, 1, 5].entries()) {
        const who = index % 2 ? bob : alice;
        const order = (await placeOrder(t, who.token, [{ productId: product.id, quantity }])).body as { id: number };
        if (index % 3 === 0) await t.request('POST', `/api/orders/${order.id}/pay`, { token: who.token });
      }
      everyone = (await list('limit=100')).data;
    });
    after(() => t?.close());

    it('keeps the seed’s order (newest first) and filters amount in currency units, paidAt and status', async () => {
      assert.equal(everyone.length, 7);
      assert.deepEqual(
        idsOf(everyone),
        [...everyone]
          .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id))
          .map((o) => o.id),
      );
      assert.deepEqual(await ids('amount[gte]=37.5'), idsOf(everyone.filter((o) => o.amount >= 37.5)));
      assert.deepEqual(await ids('amount=25'), idsOf(everyone.filter((o) => o.amount === 25)));
      assert.deepEqual(await ids('paidAt[null]=false'), idsOf(everyone.filter((o) => o.paidAt !== null)));
      assert.equal((await ids('paidAt[null]=false')).length, 3);
      assert.deepEqual(await ids('status[ne]=paid&currency=USD'), idsOf(everyone.filter((o) => o.status !== 'paid')));
      assert.deepEqual(
        await ids('sort=-amount'),
        [...everyone].sort((a, b) => b.amount - a.amount || b.id - a.id).map((o) => o.id),
      );
      assert.deepEqual(
        await ids('sort=paidAt'),
        [...everyone]
          .sort(
            (a, b) =>
              (a.paidAt === null ? 1 : 0) - (b.paidAt === null ? 1 : 0) ||
              (a.paidAt ?? '').localeCompare(b.paidAt ?? '') ||
              a.id - b.id,
          )
          .map((o) => o.id),
      );
    });

    it('keeps a customer to their own orders, and customerId other than their own to administrators', async () => {
      assert.deepEqual(await ids('', alice.token), idsOf(everyone.filter((o) => o.customerId === alice.id)));
      assert.deepEqual(
        await ids(`customerId=${alice.id}`, alice.token),
        idsOf(everyone.filter((o) => o.customerId === alice.id)),
      );
      assert.deepEqual(
        await ids(`amount[gt]=0&customerId[in]=${bob.id}`),
        idsOf(everyone.filter((o) => o.customerId === bob.id)),
      );
      for (const query of [
        `customerId=${bob.id}`,
        `customerId[in]=${alice.id},${bob.id}`,
        `customerId[ne]=${alice.id}`,
      ]) {
        const res = await t.request('GET', `/api/orders?${query}`, { token: alice.token });
        assert.equal(res.status, 403, query);
      }
    });

    it('answers 422 naming the parameter for an amount finer than a cent, unknown fields and sorts', async () => {
      for (const [query, field] of [
        ['amount[gt]=1.005', 'amount[gt]'],
        ['amount=ten', 'amount'],
        ['paidAt[gt]=soon', 'paidAt[gt]'],
        ['currency[contains]=U', 'currency[contains]'],
        ['items[eq]=1', 'items[eq]'],
        ['sort=items', 'sort'],
      ] as const) {
        const res = await t.request('GET', `/api/orders?${query}`, { token: t.adminToken });
        assert.equal(res.status, 422, query);
        assert.ok(
          res.body.error.details.some((d: { field: string }) => d.field === field),
          `${query}: ${res.text}`,
        );
      }
    });

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`walks orders by cursor to the end, each once, in order (${prefix})`, async () => {
        for (const [query, token] of [
          ['', t.adminToken],
          ['sort=-amount', t.adminToken],
          ['sort=paidAt', t.adminToken],
          ['status=pending&count=none', t.adminToken],
          ['', alice.token],
        ] as const) {
          const whole = (await list(`limit=100&${query}`, token, prefix)).data.map((o) => o.id);
          const walked: number[] = [];
          let page = await list(`limit=2&${query}`, token, prefix);
          for (;;) {
            walked.push(...page.data.map((o) => o.id));
            const next = page.pagination.nextCursor as string | null;
            if (next === null) break;
            page = await list(`limit=2&${query}&cursor=${next}`, token, prefix);
          }
          assert.deepEqual(walked, whole, query);
        }
      });
    }

    it('refuses a customer’s cursor in an administrator’s list (other scope)', async () => {
      const mine = await list('limit=1', alice.token);
      const res = await t.request('GET', `/api/orders?limit=1&cursor=${mine.pagination.nextCursor}`, {
        token: t.adminToken,
      });
      assert.equal(res.status, 422);
      assert.equal(res.body.error.details[0].field, 'cursor');
    });
  });
}
