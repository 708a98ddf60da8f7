import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { explainGenericPlan, type PlanNode } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * PostgreSQL plans a named statement once for any values after five runs (a generic plan), and the
 * service names its list statements (pg-named-statements.ts). A generic plan cannot see the values of
 * a price range and guesses it keeps 0.5% of the rows; the list must stay cheap under that plan too.
 */
const postgres = DIALECTS.find((d) => d.name === 'postgres')!;

/** Every scan of the products table or its indexes in the plan. */
function scansOfProducts(node: PlanNode): PlanNode[] {
  const own = node['Node Type'].endsWith('Scan') && node['Relation Name'] === 'products' ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOfProducts)];
}

const rowsRead = (scan: PlanNode) => scan['Actual Rows'] * scan['Actual Loops'];

/** Rows the plan read from the products table itself (an index-only scan reads no row of it). */
const heapRowsOfProducts = (plan: PlanNode) =>
  scansOfProducts(plan)
    .filter((scan) => scan['Node Type'] !== 'Index Only Scan' && scan['Node Type'] !== 'Bitmap Index Scan')
    .reduce((sum, scan) => sum + rowsRead(scan), 0);

describe('products list plan (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer(postgres);
    // 10,000 products in 20 categories of 500 (prices $1.00–$999.99), like the benchmark's data set.
    await sql`
      insert into products (name, category, price_cents, stock, created_at, updated_at)
      select 'Product ' || i, 'category-' || (i % 20), 100 + (i * 7919) % 99900, i % 5, now(), now()
      from generate_series(1, 10000) as i`.execute(t.server.db);
    await sql`vacuum analyze products`.execute(t.server.db);
  });

  after(() => t?.close());

  it('reads only the page’s own rows, and keys no further than the page’s end, for a category’s price range by price descending, under a generic plan', async () => {
    const path = '/api/products?category=category-7&min_price=100&max_price=500&sort=-price&limit=20&page=2';
    const statements: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) =>
      statements.push({ sql: text, parameters }),
    );
    const res = await t.request('GET', path);
    stop();
    assert.equal(res.status, 200, res.text);
    const body = res.body as { data: { price: number }[]; pagination: { total: number } };
    assert.equal(body.data.length, 20);
    assert.ok(body.pagination.total > 150, `the range holds ${body.pagination.total} products, more than a page`);

    const list = statements.find((s) => s.sql.includes('list_total'));
    assert.ok(list, `the list statement among ${statements.map((s) => s.sql).join('\n')}`);
    const plan = await explainGenericPlan(t.server.db, list);

    const shown = JSON.stringify(plan, null, 1);
    assert.ok(
      heapRowsOfProducts(plan) <= 20,
      `the plan read ${heapRowsOfProducts(plan)} product rows for a page of 20:\n${shown}`,
    );
    // In the page's order (migration 0006), the keys are read up to the page's end and no further.
    for (const scan of scansOfProducts(plan)) {
      assert.ok(
        rowsRead(scan) <= 40,
        `a scan read ${scan['Actual Rows']} × ${scan['Actual Loops']} entries for the 21st–40th:\n${shown}`,
      );
    }
  });
});
