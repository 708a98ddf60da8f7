import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import {
  checkPageRules,
  checkSorts,
  checkProbes,
  checkRefusals,
  probesOf,
  refusalsOf,
} from '../../../test/support/list-rules.ts';
import { QUIET_ENV, createProduct, placeOrder } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { ORDER_QUERY } from './orders.query.ts';

type Item = Record<string, unknown>;

/**
 * DECISIONS §12 on the orders list, from its grammar, as an administrator (who may name any
 * customer): every operator of every field keeps what it means (alone and two by AND), each operator a
 * field does not take and each ill-typed value is a 422 naming its parameter, an unknown sort is a 422,
 * and the count and cursor rules hold, under /api/v1 and /api/v2.
 */
for (const dialect of DIALECTS) {
  describe(`orders list, every operator and refusal (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;

    const get = (path: string) => t.request('GET', path, { token: t.adminToken });
    const items = async (path: string) => {
      const res = await get(path);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      return res.body.data as Item[];
    };

    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      const customers = [await t.createUser(), await t.createUser(), await t.createUser()];
      const product = await createProduct(t, { priceCents: 1250, stock: 1000 });
      const ids: number[] = [];
      for (const [index, quantity] of [1, 2, 3, 4, 2, 1, 5, 3].entries()) {
        const who = customers[index % 3]!;
        const order = (await placeOrder(t, who.token, [{ productId: product.id, quantity }])).body as { id: number };
        ids.push(order.id);
        if (index % 3 !== 1) await t.request('POST', `/api/orders/${order.id}/pay`, { token: who.token });
      }
      // Creation and payment times an hour apart in an order unlike the ids', and a second currency.
      for (const [i, id] of ids.entries()) {
        const created = new Date(Date.UTC(2026, 0, 1, (i * 3) % ids.length)).toISOString();
        const paid = new Date(Date.UTC(2026, 0, 2, (i * 5) % ids.length)).toISOString();
        await sql`update orders set created_at = ${created} where id = ${id}`.execute(t.server.db);
        await sql`update orders set paid_at = ${paid} where id = ${id} and paid_at is not null`.execute(t.server.db);
      }
      await sql`update orders set currency = 'EUR' where id in (${ids[2]}, ${ids[5]})`.execute(t.server.db);
    });
    after(() => t?.close());

    for (const prefix of ['/api/v1', '/api/v2']) {
      it(`keeps what each operator of each field means, alone and two by AND (${prefix})`, async () => {
        const path = `${prefix}/orders`;
        const whole = await items(`${path}?limit=100`);
        assert.equal(whole.length, 8);
        const keys = async (query: string) => (await items(`${path}?limit=100&${query}`)).map((i) => i.id);
        const probes = probesOf({ grammar: ORDER_QUERY, whole, key: (item) => item.id as number });
        await checkProbes(probes, keys);
      });

      it(`sorts by every field both ways and by two, nulls last, ties by id in the first field's direction (${prefix})`, async () => {
        const path = `${prefix}/orders?limit=100`;
        await checkSorts({
          grammar: ORDER_QUERY,
          whole: await items(path),
          key: (item) => item.id as number,
          keysSortedBy: async (sort) => (await items(`${path}&sort=${sort}`)).map((i) => i.id as number),
        });
      });

      it(`answers 422 naming the parameter for each operator a field does not take, each ill-typed value and an unknown sort (${prefix})`, async () => {
        const queries = [...refusalsOf(ORDER_QUERY), 'amount[gte]=0.001', 'sort=items', 'sort=-noSuchField'];
        await checkRefusals(queries, (query) => get(`${prefix}/orders?${query}`));
      });

      it(`leaves out the total with count=none, estimates exactly below the limit, ends with a null cursor and refuses another query's cursor (${prefix})`, async () => {
        await checkPageRules({
          get: (query) => get(`${prefix}/orders?${query}`),
          filter: 'amount[gte]=20',
          otherFilter: 'amount[gte]=30',
          otherSort: 'sort=amount',
        });
      });
    }
  });
}
