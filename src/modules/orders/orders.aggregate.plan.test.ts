import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { QUIET_ENV } from '../../../test/support/orders.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

const postgres = DIALECTS.find((dialect) => dialect.name === 'postgres')!;

type Plan = { 'Node Type': string; 'Plan Rows': number; Plans?: Plan[] };

/** Every node of a plan, depth first. */
const nodesOf = (plan: Plan): Plan[] => [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];

/**
 * Migrations 0017 (core/querying/aggregate-statistics.migration.ts): the planner knows how many time
 * buckets a table's rows make, so an administrator's aggregate over every order hashes them into a few
 * groups instead of sorting every row (bench/RESULTS.md, "Search, facets and aggregates at scale").
 */
describe(
  'orders and products aggregates by time bucket: planned as the few groups they are (postgres)',
  {
    skip: postgres.skip,
  },
  () => {
    let t: TestServer;

    /** The planner's estimate of the groups of the statement `path` runs, as the service runs it. */
    const plannedGroups = async (path: string) => {
      const { result: res, statements } = await statementsOf(t.server.db, () =>
        t.request('GET', path, { token: t.adminToken }),
      );
      assert.equal(res.status, 200, res.text);
      const grouped = statements.find((text) => /group by date_trunc/.test(text));
      assert.ok(grouped, `the statement of ${path}: ${statements.join('\n')}`);
      // The statement's parameters are its limit (and filters' values): none here but the limit.
      const statement = grouped.replace(/\$1\b/g, '100');
      const { rows } = await sql<{
        'QUERY PLAN': { Plan: Plan }[];
      }>`explain (format json) ${sql.raw(statement)}`.execute(t.server.db);
      const aggregate = nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan).find((node) => node['Node Type'] === 'Aggregate');
      assert.ok(aggregate, 'an aggregate node');
      return aggregate['Plan Rows'];
    };

    before(async () => {
      t = await startTestServer(postgres, QUIET_ENV);
      const customer = await t.createUser();
      // 3,000 orders and products over three months: without statistics on the bucket the planner takes
      // every row for a group of its own (at most 200 for an expression it knows nothing of).
      await sql`insert into orders (customer_id, status, amount_cents, currency, created_at, updated_at, paid_at)
      select ${customer.id}, 'paid', 100 + i, 'USD', d, d, d
      from generate_series(0, 2999) as i, lateral (select ${sql.lit('2026-01-01')}::timestamptz
        + ((i % 3) || ' months')::interval + (i || ' minutes')::interval as d) as t`.execute(t.server.db);
      await sql`insert into products (name, category, price_cents, stock, created_at, updated_at)
      select 'Product ' || i, 'category-01', 100, 1, d, d
      from generate_series(0, 2999) as i, lateral (select ${sql.lit('2026-01-01')}::timestamptz
        + ((i % 3) || ' months')::interval + (i || ' minutes')::interval as d) as t`.execute(t.server.db);
      await sql`analyze orders`.execute(t.server.db);
      await sql`analyze products`.execute(t.server.db);
    });
    after(() => t?.close());

    it('estimates an administrator’s orders by month, paid month and year as a handful of groups', async () => {
      assert.ok((await plannedGroups('/api/v2/orders/aggregate?groupBy=createdAt:month')) <= 10);
      assert.ok((await plannedGroups('/api/v2/orders/aggregate?groupBy=paidAt:month')) <= 10);
      assert.ok((await plannedGroups('/api/v2/orders/aggregate?groupBy=createdAt:year')) <= 10);
    });

    it('estimates the catalogue by month as a handful of groups', async () => {
      assert.ok((await plannedGroups('/api/v2/products/aggregate?groupBy=createdAt:month')) <= 10);
    });
  },
);
