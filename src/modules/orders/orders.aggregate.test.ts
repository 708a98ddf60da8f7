import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { QUIET_ENV } from '../../../test/support/orders.ts';

interface Group {
  key: Record<string, string | number | null>;
  count: number;
  sum?: Record<string, number>;
  avg?: Record<string, number | null>;
  min?: Record<string, number | null>;
  max?: Record<string, number | null>;
}
interface Answer {
  data: Group[];
  groups: number;
}
interface FacetValue {
  value: string;
  count: number;
}

/** The same requests' answers per dialect, compared at the end: the buckets and money agree on both databases. */
const answersByDialect = new Map<string, unknown[]>();

/** DECISIONS §14 on orders: aggregates (measures, groups, UTC buckets, sort, limit) and the list's facets. */
for (const dialect of DIALECTS) {
  describe(`orders aggregates and facets (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let alice: { id: number; token: string };
    let bob: { id: number; token: string };

    const insert = (
      customer: number,
      status: string,
      cents: number,
      currency: string,
      createdAt: string,
      paidAt: string | null = null,
    ) =>
      t.server.db
        .insertInto('orders')
        .values({
          customer_id: customer,
          status: status as 'paid',
          amount_cents: cents,
          currency,
          created_at: createdAt,
          updated_at: createdAt,
          paid_at: paidAt,
          cancelled_at: null,
          refunded_at: null,
        })
        .execute();

    const aggregate = async (query: string, token = t.adminToken, prefix = '/api') => {
      const res = await t.request('GET', `${prefix}/orders/aggregate?${query}`, { token });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return res.body as Answer;
    };
    const refusal = async (query: string, token = t.adminToken) => {
      const res = await t.request('GET', `/api/orders/aggregate?${query}`, { token });
      assert.ok(
        res.status >= 400 && res.status < 500,
        `${query.slice(0, 80)}: ${res.status} ${res.text.slice(0, 200)}`,
      );
      const body = res.body as { error: { code: string; details?: { field: string; message: string }[] } };
      assert.ok(body.error.code, 'the error envelope');
      return { status: res.status, error: body.error };
    };
    const facets = async (query: string, token = t.adminToken) => {
      const res = await t.request('GET', `/api/orders?${query}`, { token });
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      return (res.body as { facets?: Record<string, FacetValue[]> }).facets;
    };

    before(async () => {
      t = await startTestServer(dialect, QUIET_ENV);
      alice = await t.createUser();
      bob = await t.createUser();
      // 2026-01-31 is a Saturday, 2026-02-02 a Monday; 2025-12-31 a Wednesday.
      await insert(alice.id, 'paid', 1000, 'USD', '2026-01-31T23:30:00.000Z', '2026-01-31T23:45:00.000Z');
      await insert(alice.id, 'pending', 1, 'USD', '2026-02-01T00:10:00.000Z');
      await insert(alice.id, 'pending', 4, 'USD', '2026-02-02T08:00:00.000Z');
      await insert(alice.id, 'cancelled', 10, 'EUR', '2025-12-31T23:59:59.999Z');
      await insert(bob.id, 'paid', 20, 'USD', '2026-01-15T12:00:00.000Z', '2026-02-01T00:00:00.000Z');
      await insert(bob.id, 'refunded', 999, 'EUR', '2026-01-15T13:00:00.000Z', '2026-01-16T00:00:00.000Z');
      await insert(bob.id, 'paid', 30, 'USD', '2026-02-03T00:00:00.000Z', '2026-02-03T01:00:00.000Z');
    });
    after(() => t?.close());

    it('keeps a customer to their own orders, and grouping by customer to administrators', async () => {
      assert.deepEqual((await aggregate('', alice.token)).data, [{ key: {}, count: 4 }]);
      assert.deepEqual((await aggregate('')).data, [{ key: {}, count: 7 }]);
      const byStatus = await aggregate('groupBy=status&measures=sum(amount)', alice.token);
      assert.deepEqual(byStatus.data, [
        { key: { status: 'cancelled' }, count: 1, sum: { amount: 0.1 } },
        { key: { status: 'paid' }, count: 1, sum: { amount: 10 } },
        { key: { status: 'pending' }, count: 2, sum: { amount: 0.05 } },
      ]);
      // Naming another customer is refused as in the list; naming oneself is the same as nothing.
      assert.equal((await refusal(`customerId=${bob.id}`, alice.token)).status, 403);
      assert.equal((await aggregate(`customerId=${alice.id}`, alice.token)).data[0]!.count, 4);
      assert.equal((await refusal('groupBy=customerId', alice.token)).status, 403);
      const byCustomer = await aggregate('groupBy=customerId&measures=sum(amount)');
      assert.deepEqual(byCustomer.data, [
        { key: { customerId: alice.id }, count: 4, sum: { amount: 10.15 } },
        { key: { customerId: bob.id }, count: 3, sum: { amount: 10.49 } },
      ]);
      assert.equal((await t.request('GET', '/api/orders/aggregate')).status, 401);
    });

    it('applies the list’s filters, and sums money exactly from cents', async () => {
      const cheap = await aggregate('amount[gte]=0.1&amount[lte]=0.2&measures=sum(amount),min(amount),max(amount)');
      // 0.1 + 0.2 in floating point is 0.30000000000000004: the sum is taken in cents.
      assert.deepEqual(cheap.data, [
        { key: {}, count: 2, sum: { amount: 0.3 }, min: { amount: 0.1 }, max: { amount: 0.2 } },
      ]);
      const paid = await aggregate('status=paid&currency=USD&measures=sum(amount),avg(amount)');
      assert.deepEqual(paid.data, [{ key: {}, count: 3, sum: { amount: 10.5 }, avg: { amount: 3.5 } }]);
      const none = await aggregate('status=paid&currency=EUR&measures=sum(amount),avg(amount),max(amount)');
      assert.deepEqual(none.data, [
        { key: {}, count: 0, sum: { amount: 0 }, avg: { amount: null }, max: { amount: null } },
      ]);
    });

    it('rounds averages half-even to the cent', async () => {
      // 0.01 and 0.04: 2.5 cents, to the even 2 (half-up would say 0.03).
      const pending = await aggregate('status=pending&measures=avg(amount)');
      assert.deepEqual(pending.data, [{ key: {}, count: 2, avg: { amount: 0.02 } }]);
      // 10.00, 0.20 and 0.30 with 0.01 and 0.04 (USD): 10.55 / 5 = 2.11 exactly; 0.10 and 9.99 (EUR): 5.045 → 5.04.
      const byCurrency = await aggregate('groupBy=currency&measures=avg(amount)');
      assert.deepEqual(byCurrency.data, [
        { key: { currency: 'EUR' }, count: 2, avg: { amount: 5.04 } },
        { key: { currency: 'USD' }, count: 5, avg: { amount: 2.11 } },
      ]);
    });

    it('buckets times in UTC: an order at 23:30 on the last day of a month is that month’s; weeks start on Monday', async () => {
      const month = await aggregate('groupBy=createdAt:month');
      assert.deepEqual(month.data, [
        { key: { 'createdAt:month': '2025-12-01T00:00:00.000Z' }, count: 1 },
        { key: { 'createdAt:month': '2026-01-01T00:00:00.000Z' }, count: 3 },
        { key: { 'createdAt:month': '2026-02-01T00:00:00.000Z' }, count: 3 },
      ]);
      const week = await aggregate('groupBy=createdAt:week');
      assert.deepEqual(
        week.data.map((g) => [g.key['createdAt:week'], g.count]),
        [
          ['2025-12-29T00:00:00.000Z', 1],
          ['2026-01-12T00:00:00.000Z', 2],
          ['2026-01-26T00:00:00.000Z', 2],
          ['2026-02-02T00:00:00.000Z', 2],
        ],
      );
      const day = await aggregate(
        'groupBy=createdAt:day&createdAt[lt]=2026-02-01T00:00:00Z&createdAt[gte]=2026-01-31T00:00:00Z',
      );
      assert.deepEqual(day.data, [{ key: { 'createdAt:day': '2026-01-31T00:00:00.000Z' }, count: 1 }]);
      const year = await aggregate('groupBy=createdAt:year');
      assert.deepEqual(
        year.data.map((g) => [g.key['createdAt:year'], g.count]),
        [
          ['2025-01-01T00:00:00.000Z', 1],
          ['2026-01-01T00:00:00.000Z', 6],
        ],
      );
      // Unpaid orders have no paidAt bucket: one null group, last.
      const paid = await aggregate('groupBy=paidAt:month&measures=sum(amount)');
      assert.deepEqual(paid.data, [
        { key: { 'paidAt:month': '2026-01-01T00:00:00.000Z' }, count: 2, sum: { amount: 19.99 } },
        { key: { 'paidAt:month': '2026-02-01T00:00:00.000Z' }, count: 2, sum: { amount: 0.5 } },
        { key: { 'paidAt:month': null }, count: 3, sum: { amount: 0.15 } },
      ]);
      const both = await aggregate('groupBy=status,createdAt:month&status=paid', alice.token);
      assert.deepEqual(both.data, [
        { key: { status: 'paid', 'createdAt:month': '2026-01-01T00:00:00.000Z' }, count: 1 },
      ]);
    });

    it('sorts by a measure or a group key, ties by the group keys ascending', async () => {
      const byCount = await aggregate('groupBy=status&sort=-count');
      assert.deepEqual(
        byCount.data.map((g) => [g.key.status, g.count]),
        [
          ['paid', 3],
          ['pending', 2],
          ['cancelled', 1],
          ['refunded', 1],
        ],
      );
      const bySum = await aggregate('groupBy=currency&sort=sum(amount)');
      assert.deepEqual(
        bySum.data.map((g) => g.key.currency),
        ['EUR', 'USD'],
      );
      assert.deepEqual(
        (await aggregate('groupBy=currency&sort=-sum(amount)')).data.map((g) => g.key.currency),
        ['USD', 'EUR'],
      );
      assert.deepEqual(
        (await aggregate('groupBy=status&sort=-status')).data.map((g) => g.key.status),
        ['refunded', 'pending', 'paid', 'cancelled'],
      );
    });

    it('names each unknown measure, function, field, bucket and sort key in a 422', async () => {
      const cases: [string, string, RegExp][] = [
        ['measures=median(amount)', 'measures', /median/],
        ['measures=sum(price)', 'measures', /price/],
        ['measures=total', 'measures', /total/],
        ['groupBy=createdAt:hour', 'groupBy', /hour/],
        ['groupBy=createdAt', 'groupBy', /bucket/],
        ['groupBy=amount', 'groupBy', /amount/],
        ['groupBy=status&sort=currency', 'sort', /currency/],
        ['groupBy=status,status', 'groupBy', /twice/],
      ];
      for (const [query, field, message] of cases) {
        const { status, error } = await refusal(query);
        assert.equal(status, 422, query);
        assert.equal(error.code, 'VALIDATION_ERROR');
        assert.ok(
          error.details?.some((d) => d.field === field && message.test(d.message)),
          `${query}: ${JSON.stringify(error.details)}`,
        );
      }
      assert.equal((await refusal('status=shipped')).status, 422);
      assert.equal((await refusal('amount[gte]=abc')).status, 422);
      const v2 = await t.request('GET', '/api/v2/orders/aggregate?page=2', { token: t.adminToken });
      assert.equal(v2.status, 422, 'an undeclared parameter in v2');
    });

    it('answers hostile input with a clear 4xx, never a 5xx', async () => {
      const hostile = [
        `groupBy=${Array(50).fill('status').join(',')}`,
        `groupBy=${['status', 'currency', 'customerId', 'createdAt:day', 'createdAt:week', 'paidAt:year'].join(',')}`,
        'measures=sum(',
        'measures=sum(amount))',
        'measures=sum(amount%00)',
        'measures=count%00',
        `groupBy=status%00`,
        `measures=${'a'.repeat(10_000)}`,
        `sort=${'-'.repeat(300)}`,
        `measures=${encodeURIComponent('sum(amount);drop table orders')}`,
        'limit=1e99',
        `groupBy=${encodeURIComponent("status' or 1=1 --")}`,
      ];
      for (const query of hostile) await refusal(query);
      // A limit out of range is clamped as a list's is (a normal answer); a huge one is a 4xx; never a 5xx.
      for (const limit of ['-5', '0', '99999999999999999999', '1001']) {
        const res = await t.request('GET', `/api/v2/orders/aggregate?groupBy=status&limit=${limit}`, {
          token: t.adminToken,
        });
        assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `limit=${limit}: ${res.status}`);
      }
      // The list's facets take the same hostile names: a 422, never a 5xx.
      for (const facets of ['status%00', 'x'.repeat(10_000), Array(50).fill('status').join(','), "status'--"]) {
        const res = await t.request('GET', `/api/v2/orders?facets=${facets}`, { token: t.adminToken });
        assert.ok(
          res.status >= 400 && res.status < 500,
          `facets=${facets.slice(0, 40)}: ${res.status} ${res.text.slice(0, 200)}`,
        );
      }
      assert.equal((await aggregate('')).data[0]!.count, 7);
    });

    it('caps the groups of one answer at limit (default 100, at most 1000) and counts them all', async () => {
      const limited = await aggregate('groupBy=createdAt:day&limit=2');
      assert.equal(limited.data.length, 2);
      assert.equal(limited.groups, 6);
      assert.equal((await aggregate('groupBy=createdAt:day&limit=0')).data.length, 1);
      assert.equal((await aggregate('groupBy=createdAt:day')).groups, 6);
    });

    it('counts facets over the other filters, its own filter left out, most frequent first, ties by value', async () => {
      assert.deepEqual(await facets('facets=status,currency'), {
        status: [
          { value: 'paid', count: 3 },
          { value: 'pending', count: 2 },
          { value: 'cancelled', count: 1 },
          { value: 'refunded', count: 1 },
        ],
        currency: [
          { value: 'USD', count: 5 },
          { value: 'EUR', count: 2 },
        ],
      });
      // status=paid narrows the currencies, not the statuses (a shop shows the other statuses' counts).
      const paid = await facets('status=paid&facets=status,currency');
      assert.deepEqual(
        paid?.status?.map((f) => [f.value, f.count]),
        [
          ['paid', 3],
          ['pending', 2],
          ['cancelled', 1],
          ['refunded', 1],
        ],
      );
      assert.deepEqual(paid?.currency, [{ value: 'USD', count: 3 }]);
      assert.deepEqual((await facets('status[in]=paid,pending&currency=EUR&facets=status'))?.status, [
        { value: 'cancelled', count: 1 },
        { value: 'refunded', count: 1 },
      ]);
      // A customer's facets count their own orders only.
      assert.deepEqual((await facets('facets=status', alice.token))?.status, [
        { value: 'pending', count: 2 },
        { value: 'cancelled', count: 1 },
        { value: 'paid', count: 1 },
      ]);
      // From the counters (every order, or a customer's own): a status emptied again is left out.
      await insert(bob.id, 'pending', 5, 'USD', '2026-02-04T00:00:00.000Z');
      await t.server.db
        .deleteFrom('orders')
        .where('customer_id', '=', bob.id)
        .where('status', '=', 'pending')
        .execute();
      const texts: string[] = [];
      const stop = observeQueries(t.server.db, (text) => texts.push(text));
      assert.deepEqual((await facets('facets=status', bob.token))?.status, [
        { value: 'paid', count: 2 },
        { value: 'refunded', count: 1 },
      ]);
      stop();
      assert.ok(
        texts.some((text) => /from "order_counts"/.test(text)),
        texts.join('\n'),
      );
      assert.equal(await facets(''), undefined);
      const unknown = await t.request('GET', '/api/orders?facets=amount', { token: t.adminToken });
      assert.equal(unknown.status, 422);
      assert.match(unknown.text, /facets/);
    });

    it('charges an aggregate and each facet more against the rate limit than a plain read', async () => {
      const remaining = async (path: string) =>
        Number((await t.request('GET', path, { token: bob.token })).headers.get('ratelimit-remaining'));
      const first = await remaining('/api/orders');
      const afterAggregate = await remaining('/api/orders/aggregate?groupBy=status');
      const afterFacets = await remaining('/api/orders?facets=status,currency');
      const afterPlain = await remaining('/api/orders');
      assert.equal(first - afterAggregate, 10);
      assert.equal(afterAggregate - afterFacets, 11);
      assert.equal(afterFacets - afterPlain, 1);
    });

    it('answers the same under /api/v1 and /api/v2', async () => {
      const query =
        'groupBy=status,paidAt:week,currency&measures=count,sum(amount),avg(amount),min(amount),max(amount)';
      const v1 = await aggregate(query, t.adminToken, '/api/v1');
      assert.deepEqual(await aggregate(query, t.adminToken, '/api/v2'), v1);
      answersByDialect.set(dialect.name, [
        v1,
        await aggregate('groupBy=createdAt:week,createdAt:day&measures=avg(amount)&sort=-avg(amount)'),
        await aggregate('groupBy=customerId,createdAt:year&sort=-customerId'),
        await facets('facets=status,currency&amount[lt]=5'),
      ]);
    });

    it('caps limit at 1000 groups', async () => {
      const rows = Array.from({ length: 1001 }, (_, day) => {
        const at = new Date(Date.UTC(2020, 0, 1) + day * 86_400_000).toISOString();
        return {
          customer_id: bob.id,
          status: 'pending' as const,
          amount_cents: 100,
          currency: 'CAP',
          created_at: at,
          updated_at: at,
          paid_at: null,
          cancelled_at: null,
          refunded_at: null,
        };
      });
      await t.server.db.insertInto('orders').values(rows).execute();
      const capped = await aggregate('currency=CAP&groupBy=createdAt:day&limit=5000');
      assert.equal(capped.data.length, 1000);
      assert.equal(capped.groups, 1001);
      assert.equal((await aggregate('currency=CAP&groupBy=createdAt:day')).data.length, 100);
    });
  });
}

describe('orders aggregates on both databases', () => {
  it('give the same answers for the same data', (context) => {
    if (answersByDialect.size < 2) return context.skip('needs both databases');
    assert.deepEqual(answersByDialect.get('postgres'), answersByDialect.get('sqlite'));
  });
});
