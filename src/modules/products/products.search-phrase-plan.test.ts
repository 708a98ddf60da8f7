import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { observeQueries } from '../../core/db/database.ts';
import { dialectNamed } from '../../../test/support/dialects.ts';
import { explainAsRun, rowsRead, scansOf } from '../../../test/support/generic-plan.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/**
 * DECISIONS §14 "Cost": a bounded relevance page's candidates are the lowest ids among the matches. A
 * phrase of two common words is rare, but PostgreSQL estimates it as the two words together; walking
 * the ids in order until enough candidates match would then read every document. The page sorts the
 * few matches' ids instead (list-page.ts, SORTED_MATCHES_UP_TO), and still answers the lowest ids.
 */
const postgres = dialectNamed('postgres');
const ROWS = 30_000;

describe('a rare phrase of common words, ranked (postgres)', { skip: postgres.skip }, () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(postgres, { SEARCH_RANK_CANDIDATES: '100' });
    // One in 10 says "brushed", one in 7 "steel", one in 70 both (the planner's estimate of the phrase),
    // one in 700 "brushed steel".
    await sql`insert into products (name, category, description, price_cents, stock, created_at, updated_at)
      select 'Chair ' || i, 'category-' || (i % 5),
        case when i % 700 = 0 then 'brushed steel legs' when i % 70 = 0 then 'brushed oak top, steel legs'
          when i % 10 = 0 then 'brushed oak top' when i % 7 = 0 then 'steel legs' else 'pine' end,
        100000, 5, now(), now()
      from generate_series(1, ${ROWS}) as i`.execute(t.server.db);
    await sql`analyze products`.execute(t.server.db);
    await sql`analyze product_search`.execute(t.server.db);
  });
  after(() => t?.close());

  it('reads the phrase matches through the index, not every document, and answers them all', async () => {
    const seen: { sql: string; parameters: readonly unknown[] }[] = [];
    const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) => seen.push({ sql: text, parameters }));
    const res = await t.request(
      'GET',
      `/api/v2/products?q=${encodeURIComponent('"brushed steel"')}&limit=50&count=none`,
    );
    stop();
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.length, Math.floor(ROWS / 700));
    const page = seen.find((statement) => /search_score/.test(statement.sql) && /limit/.test(statement.sql));
    assert.ok(page, seen.map((statement) => statement.sql).join('\n'));
    const plan = await explainAsRun(t.server.db, page);
    const read = scansOf('product_search', plan).reduce((sum, scan) => sum + rowsRead(scan), 0);
    assert.ok(read < ROWS / 20, `the page read ${read} documents:\n${JSON.stringify(plan, null, 1)}`);
  });

  for (const word of ['brushed', '"brushed steel"']) {
    it(`reads the table's rows of the page only, not of every candidate (q=${word})`, async () => {
      const seen: { sql: string; parameters: readonly unknown[] }[] = [];
      const stop = observeQueries(t.server.db, (text, _ms, _failed, parameters) =>
        seen.push({ sql: text, parameters }),
      );
      const res = await t.request('GET', `/api/v2/products?q=${encodeURIComponent(word)}&limit=5&count=none`);
      stop();
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.length, 5);
      const page = seen.find((statement) => /search_score/.test(statement.sql) && /limit/.test(statement.sql));
      assert.ok(page, seen.map((statement) => statement.sql).join('\n'));
      const plan = await explainAsRun(t.server.db, page);
      const read = scansOf('products', plan).reduce((sum, scan) => sum + rowsRead(scan), 0);
      assert.ok(read <= 6, `the page read ${read} products:\n${JSON.stringify(plan, null, 1)}`);
    });
  }

  // The candidates are the lowest ids among the matches whichever way they are found: walked (`brushed`,
  // 3,000 matches, above 20 × 100 expected) or sorted (both words, 428); pages by cursor neither repeat nor skip.
  for (const [word, expected] of [
    ['brushed', Array.from({ length: 100 }, (_, i) => 10 * (i + 1))],
    ['brushed steel', Array.from({ length: 100 }, (_, i) => 70 * (i + 1))],
  ] as const) {
    it(`pages by cursor through the lowest ${expected.length} matching ids, each once (q=${word})`, async () => {
      const ids: number[] = [];
      let cursor: string | null = '';
      while (cursor !== null) {
        const after: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
        const res = await t.request(
          'GET',
          `/api/v2/products?q=${encodeURIComponent(word)}&limit=15&count=none${after}`,
        );
        assert.equal(res.status, 200, res.text);
        ids.push(...(res.body.data as { id: number }[]).map((item) => item.id));
        cursor = res.body.pagination.nextCursor as string | null;
      }
      assert.deepEqual(
        ids.toSorted((a, b) => a - b),
        [...expected],
      );
    });
  }

  for (const count of ['exact', 'estimated']) {
    it(`answers count=${count} exactly from the page's own read of the matches, no second read`, async () => {
      const seen: string[] = [];
      const stop = observeQueries(t.server.db, (text) => seen.push(text));
      const res = await t.request(
        'GET',
        `/api/v2/products?q=${encodeURIComponent('"brushed steel"')}&limit=5&count=${count}`,
      );
      stop();
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.pagination.total, Math.floor(ROWS / 700));
      assert.equal(res.body.pagination.totalEstimated, undefined);
      assert.equal(res.body.data.length, 5);
      assert.equal('matches_total' in res.body.data[0], false);
      const reads = seen.filter(
        (text) => /from "product_search"|join "product_search"/.test(text) && !/^explain/.test(text),
      );
      assert.equal(reads.length, 1, reads.join('\n'));
    });
  }
});
