import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainAsRun, type PlanNode } from '../../../test/support/generic-plan.ts';
import { QUIET_ENV } from '../../../test/support/orders.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { insertInChunks } from '../../../test/support/bulk-insert.ts';

/**
 * DECISIONS §12 on the orders list at 50,000 orders on PostgreSQL: each filter and sort alone, the
 * default order (newest first) of an administrator's whole list and a customer's own, and a deep page
 * by cursor, each read through an index and no further than the page where the order allows it; and
 * the exact totals the list answers by default taken from `order_counts`, not counted.
 */
const postgres = dialectNamed('postgres');
const ORDERS = 50_000;

function scansOfOrders(node: PlanNode): PlanNode[] {
  const own = node['Node Type'].includes('Scan') && node['Relation Name'] === 'orders' ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOfOrders)];
}
const rowsRead = (scan: PlanNode) =>
  (scan['Actual Rows'] + (scan['Rows Removed by Filter'] ?? 0)) * scan['Actual Loops'];

/** The plan the service gets: named statements on the generic plan, those with `in` or `like` planned for their values. */
describe('orders list plans (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  let customer: { id: number; token: string };

  before(async () => {
    t = await startTestServer(postgres, QUIET_ENV);
    customer = await t.createUser();
    // 20 customers' worth of ids (the admin and the customer), a quarter paid, one a minute.
    await insertInChunks(ORDERS, (from, to) =>
      sql`
      insert into orders (customer_id, status, amount_cents, currency, created_at, updated_at, paid_at)
      select case when i % 20 = 0 then ${customer.id} else 1 end,
             case when i % 4 = 0 then 'paid' when i % 4 = 1 then 'cancelled' else 'pending' end,
             100 + (i * 7919) % 99900, 'USD',
             now() - make_interval(mins => ${ORDERS} - i), now(),
             case when i % 4 = 0 then now() - make_interval(mins => ${ORDERS} - i - 1) end
      from generate_series(${from}::int, ${to}::int) as i`.execute(t.server.db),
    );
    await sql`vacuum analyze orders`.execute(t.server.db);
  });
  after(() => t?.close());

  async function assertIndexed(path: string, maxRows: number, token = t.adminToken) {
    const statements: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) =>
      statements.push({ sql: text, parameters }),
    );
    const res = await t.request('GET', path, { token });
    stop();
    assert.equal(res.status, 200, `${path}: ${res.text}`);
    const page = statements.find((s) => /from "orders"/.test(s.sql) && /limit/.test(s.sql) && !/count\(/.test(s.sql));
    assert.ok(page, `${path}: the page statement among ${statements.map((s) => s.sql).join('\n')}`);
    const plan = await explainAsRun(t.server.db, page);
    const shown = JSON.stringify(plan, null, 1);
    for (const scan of scansOfOrders(plan)) {
      assert.notEqual(scan['Node Type'], 'Seq Scan', `${path} scans the orders table:\n${shown}`);
      assert.ok(rowsRead(scan) <= maxRows, `${path}: a scan read ${rowsRead(scan)} entries:\n${shown}`);
    }
    return res.body as { pagination: { nextCursor: string | null } };
  }

  it('serves each filter alone by an index', async () => {
    for (const filter of [
      'status=paid',
      `customerId=${customer.id}`,
      'amount[gte]=500',
      'currency=USD',
      'paidAt[null]=true',
      'createdAt[lt]=2000-01-01T00:00:00Z',
      'id[in]=5,7,11',
    ]) {
      await assertIndexed(`/api/orders?count=none&limit=20&${filter}`, 5_000);
    }
  });

  it('serves the default order and every sort from an index, reading no more than the page', async () => {
    await assertIndexed('/api/orders?count=none&limit=20', 25);
    await assertIndexed('/api/orders?count=none&limit=20', 25, customer.token);
    for (const sort of ['amount', '-amount', 'paidAt', '-paidAt', 'createdAt', 'status', '-currency', 'customerId']) {
      await assertIndexed(`/api/orders?count=none&limit=20&sort=${sort}`, 25);
    }
  });

  it('answers the exact totals of the whole list, a status and a customer’s own list without counting orders', async () => {
    const cases = [
      { path: '/api/orders?limit=20', token: t.adminToken, total: ORDERS },
      { path: '/api/orders?limit=20&status=paid', token: t.adminToken, total: ORDERS / 4 },
      { path: '/api/orders?limit=20&status[in]=paid,cancelled', token: t.adminToken, total: ORDERS / 2 },
      { path: '/api/orders?limit=20', token: customer.token, total: ORDERS / 20 },
    ];
    for (const { path, token, total } of cases) {
      const statements: string[] = [];
      const stop = observeQueries(t.server.db, (text) => statements.push(text));
      const res = await t.request('GET', path, { token });
      stop();
      assert.equal(res.status, 200, `${path}: ${res.text}`);
      assert.equal(res.body.pagination.total, total, path);
      assert.ok(!statements.some((s) => /count\(/.test(s)), `${path} counts rows:\n${statements.join('\n')}`);
    }
  });

  it('reads a deep page by cursor no further than the first page', async () => {
    for (const sort of ['', '&sort=-amount', '&sort=paidAt']) {
      const deep = await assertIndexed(`/api/orders?count=none&limit=100&page=200${sort}`, 20_101);
      assert.ok(deep.pagination.nextCursor);
      await assertIndexed(`/api/orders?count=none&limit=20${sort}&cursor=${deep.pagination.nextCursor}`, 25);
    }
  });
});
