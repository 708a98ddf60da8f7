import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AGGREGATE_REQUEST_WEIGHT } from '../../core/querying/aggregate-grammar.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { startTestServer, type TestServer, type TestResponse } from '../../../test/support/test-server.ts';

interface Detail {
  field: string;
  message: string;
}

const detailsOf = (res: TestResponse): Detail[] =>
  (res.body.errors ?? []).flatMap((e: { extensions?: { details?: Detail[] } }) => e.extensions?.details ?? []);

/** DECISIONS §14 in GraphQL: `ordersAggregate`, REST's GET /orders/aggregate through the same service call. */
for (const dialect of DIALECTS) {
  describe(`ordersAggregate in GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };

    const insert = (customer: number, status: string, cents: number, currency: string, createdAt: string) =>
      t.server.db
        .insertInto('orders')
        .values({
          customer_id: customer,
          status: status as 'paid',
          amount_cents: cents,
          currency,
          created_at: createdAt,
          updated_at: createdAt,
          paid_at: status === 'paid' ? createdAt : null,
          cancelled_at: null,
          refunded_at: null,
        })
        .execute();

    /** Runs an aggregate query expecting an answer without errors. */
    const aggregate = async (args: string, selection: string, token: string | undefined = t.adminToken) => {
      const res = await gql(t, `{ ordersAggregate${args ? `(${args})` : ''} { ${selection} } }`, { token });
      assert.equal(res.body.errors, undefined, `${args}: ${res.text}`);
      return res.body.data.ordersAggregate;
    };

    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      alice = await t.createUser();
      bob = await t.createUser();
      await insert(alice.id, 'paid', 1000, 'USD', '2026-01-31T23:30:00.000Z');
      await insert(alice.id, 'pending', 1, 'USD', '2026-02-01T00:10:00.000Z');
      await insert(alice.id, 'pending', 4, 'USD', '2026-02-02T08:00:00.000Z');
      await insert(bob.id, 'paid', 20, 'USD', '2026-01-15T12:00:00.000Z');
      await insert(bob.id, 'refunded', 999, 'EUR', '2026-01-15T13:00:00.000Z');
    });
    after(() => t?.close());

    it('keeps a customer to their own orders, as REST does; an administrator aggregates them all', async () => {
      assert.deepEqual(await aggregate('', 'groups data { count }', alice.token), { groups: 1, data: [{ count: 3 }] });
      assert.deepEqual(await aggregate('', 'data { count }', bob.token), { data: [{ count: 2 }] });
      assert.deepEqual(await aggregate('', 'data { count }'), { data: [{ count: 5 }] });
      const byStatus = await aggregate(
        'groupBy: ["status"], measures: ["sum(amount)"]',
        'data { key { status currency } count sum { amount } avg { amount } }',
        alice.token,
      );
      assert.deepEqual(byStatus.data, [
        { key: { status: 'paid', currency: null }, count: 1, sum: { amount: 10 }, avg: null },
        { key: { status: 'pending', currency: null }, count: 2, sum: { amount: 0.05 }, avg: null },
      ]);
      const anonymous = await gql(t, '{ ordersAggregate { groups } }');
      assert.deepEqual(errorCodes(anonymous), ['UNAUTHENTICATED']);
    });

    it('leaves grouping by customer, and another customer’s filter, to administrators (FORBIDDEN)', async () => {
      const grouped = await gql(t, '{ ordersAggregate(groupBy: ["customerId"]) { groups } }', { token: alice.token });
      assert.deepEqual(errorCodes(grouped), ['FORBIDDEN']);
      const other = await gql(t, `{ ordersAggregate(filter: { customerId: { eq: ${bob.id} } }) { groups } }`, {
        token: alice.token,
      });
      assert.deepEqual(errorCodes(other), ['FORBIDDEN']);
      const byCustomer = await aggregate(
        'groupBy: ["customerId"], measures: ["sum(amount)", "max(amount)"]',
        'data { key { customerId } count sum { amount } max { amount } }',
      );
      assert.deepEqual(byCustomer.data, [
        { key: { customerId: String(alice.id) }, count: 3, sum: { amount: 10.05 }, max: { amount: 10 } },
        { key: { customerId: String(bob.id) }, count: 2, sum: { amount: 10.19 }, max: { amount: 9.99 } },
      ]);
    });

    it('answers what REST answers for the same filter, groups, measures, sort and limit', async () => {
      const graphql = await aggregate(
        'filter: { status: { in: ["paid", "pending", "refunded"] } }, groupBy: ["currency", "createdAt:month"], measures: ["avg(amount)", "min(amount)"], sort: ["-count"], limit: 2',
        'groups data { key { currency createdAt } count avg { amount } min { amount } }',
      );
      const rest = await t.request(
        'GET',
        '/api/orders/aggregate?status[in]=paid,pending,refunded&groupBy=currency,createdAt:month&measures=avg(amount),min(amount)&sort=-count&limit=2',
        { token: t.adminToken },
      );
      assert.equal(rest.status, 200, rest.text);
      assert.equal(graphql.groups, rest.body.groups);
      assert.deepEqual(
        graphql.data,
        rest.body.data.map((g: { key: Record<string, string>; count: number; avg: object; min: object }) => ({
          key: { currency: g.key.currency, createdAt: g.key['createdAt:month'] },
          count: g.count,
          avg: g.avg,
          min: g.min,
        })),
      );
      assert.equal(graphql.data.length, 2);
    });

    it('gives each time bucket its start in UTC, the one `bucket` names when a field is bucketed twice', async () => {
      const twice = await aggregate(
        'groupBy: ["createdAt:month", "createdAt:day"], filter: { createdAt: { gte: "2026-01-31T00:00:00Z" } }',
        'data { key { createdAt month: createdAt(bucket: "month") day: createdAt(bucket: "day") paidAt } count }',
        alice.token,
      );
      assert.deepEqual(twice.data, [
        {
          key: {
            createdAt: '2026-01-01T00:00:00.000Z',
            month: '2026-01-01T00:00:00.000Z',
            day: '2026-01-31T00:00:00.000Z',
            paidAt: null,
          },
          count: 1,
        },
        {
          key: {
            createdAt: '2026-02-01T00:00:00.000Z',
            month: '2026-02-01T00:00:00.000Z',
            day: '2026-02-01T00:00:00.000Z',
            paidAt: null,
          },
          count: 1,
        },
        {
          key: {
            createdAt: '2026-02-01T00:00:00.000Z',
            month: '2026-02-01T00:00:00.000Z',
            day: '2026-02-02T00:00:00.000Z',
            paidAt: null,
          },
          count: 1,
        },
      ]);
    });

    it('names the argument of each unknown measure, field, bucket or sort key in a BAD_USER_INPUT', async () => {
      const cases: [string, string, RegExp][] = [
        ['measures: ["median(amount)"]', 'measures', /median/],
        ['measures: ["sum(price)"]', 'measures', /price/],
        ['groupBy: ["createdAt:hour"]', 'groupBy', /hour/],
        ['groupBy: ["amount"]', 'groupBy', /amount/],
        ['groupBy: ["status"], sort: ["currency"]', 'sort', /currency/],
        ['filter: { amount: { gte: -1 } }, measures: ["sum(amount);drop table orders"]', 'measures', /measure/],
      ];
      for (const [args, field, message] of cases) {
        const res = await gql(t, `{ ordersAggregate(${args}) { groups } }`, { token: t.adminToken });
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], `${args}: ${res.text}`);
        assert.ok(
          detailsOf(res).some((d) => d.field === field && message.test(d.message)),
          `${args}: ${res.text}`,
        );
      }
      const status = await gql(t, '{ ordersAggregate(filter: { status: { eq: "shipped" } }) { groups } }', {
        token: t.adminToken,
      });
      assert.deepEqual(errorCodes(status), ['BAD_USER_INPUT']);
      assert.ok(
        detailsOf(status).some((d) => d.field.startsWith('filter.status')),
        status.text,
      );
    });

    it('answers hostile arguments with BAD_USER_INPUT or a normal answer, never a server error', async () => {
      const hostile = [
        'limit: -5',
        'limit: 2147483648',
        'measures: ["sum(amount\\u0000)"]',
        `measures: ["${'a'.repeat(10_000)}"]`,
        `groupBy: [${Array(50).fill('"status"').join(', ')}]`,
        'groupBy: ["status\' or 1=1 --"]',
        'sort: ["-------"]',
      ];
      for (const args of hostile) {
        const res = await gql(t, `{ ordersAggregate(${args}) { groups } }`, { token: t.adminToken });
        assert.ok(res.status < 500, `${args.slice(0, 40)}: ${res.status}`);
        const codes = (res.body.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
        assert.ok(
          codes.every((code: string | undefined) => code === 'BAD_USER_INPUT' || code === 'GRAPHQL_VALIDATION_FAILED'),
          `${args.slice(0, 40)}: ${res.text.slice(0, 300)}`,
        );
      }
    });

    it('charges an aggregate as REST’s weight in the rate limit, and refuses a document of many by the cost limit', async () => {
      const remaining = async (query: string) =>
        Number((await gql(t, query, { token: bob.token })).headers.get('ratelimit-remaining'));
      const first = await remaining('{ orders { id } }');
      const afterAggregate = await remaining('{ ordersAggregate(groupBy: ["status"]) { groups } }');
      const afterPlain = await remaining('{ orders { id } }');
      assert.ok(first - afterAggregate >= AGGREGATE_REQUEST_WEIGHT, `charged ${first - afterAggregate}`);
      assert.equal(afterAggregate - afterPlain, 1);
      const many = Array.from(
        { length: 20 },
        (_, i) =>
          `a${i}: ordersAggregate(groupBy: ["createdAt:day"], limit: 1000) { data { key { createdAt } count } }`,
      ).join(' ');
      const refused = await gql(t, `{ ${many} }`, { token: t.adminToken });
      assert.equal(refused.body.data, undefined, refused.text);
      assert.equal(refused.body.errors[0].extensions.guard, 'cost', refused.text);
      // Each: its REST weight in plain reads of 100 objects, itself, and up to 1000 groups of two objects.
      assert.equal(refused.body.errors[0].extensions.actual, 20 * (AGGREGATE_REQUEST_WEIGHT * 100 + 1 + 1000 * 2));
      const few = await gql(t, `{ ${many.split(' a3:')[0]} }`, { token: t.adminToken });
      assert.equal(few.body.errors, undefined, few.text);
    });
  });
}
