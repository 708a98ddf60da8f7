import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

type Item = { id: number; category: string; _search: { score: number } };
type Page = { data: Item[]; pagination: { total?: number; hasNext: boolean; nextCursor: string | null } };

/**
 * DECISIONS §14 "Cost": a relevance order ranks the first SEARCH_RANK_CANDIDATES matches that pass the
 * list's filters, not every match. Six lamps: three with the word only in the description (inserted
 * first), three with it in the name, the better matches, in category `lights`.
 */
const LAMPS = [
  ['Desk', 'office', 'a lamp for the desk'],
  ['Shelf', 'office', 'a shelf with a lamp'],
  ['Stool', 'office', 'a stool, no lamp'],
  ['Lamp Tall', 'lights', 'tall and bright'],
  ['Lamp Small', 'lights', 'small and warm'],
  ['Lamp Round', 'lights', 'round and soft'],
] as const;

for (const dialect of DIALECTS) {
  for (const candidates of [3, 0]) {
    describe(
      `products search, relevance over ${candidates || 'every'} candidates (${dialect.name})`,
      {
        skip: dialect.skip,
      },
      () => {
        let t: TestServer;
        let ids: number[];
        const list = async (query: string): Promise<Page> => {
          const res = await t.request('GET', `/api/v2/products?${query}`);
          assert.equal(res.status, 200, `${query}: ${res.text}`);
          return res.body as Page;
        };
        /** Every item of a list, page by page through `nextCursor`. */
        const walk = async (query: string): Promise<Item[]> => {
          const items: Item[] = [];
          let page = await list(`${query}&limit=2`);
          items.push(...page.data);
          while (page.pagination.nextCursor) {
            page = await list(`${query}&limit=2&cursor=${encodeURIComponent(page.pagination.nextCursor)}`);
            items.push(...page.data);
          }
          return items;
        };

        before(async () => {
          t = await startTestServer(dialect, { SEARCH_RANK_CANDIDATES: String(candidates) });
          const at = '2026-01-01T00:00:00.000Z';
          ids = [];
          for (const [i, [name, category, description]] of LAMPS.entries()) {
            const row = await t.server.db
              .insertInto('products')
              .values({
                name,
                category,
                description,
                price_cents: 100 * (i + 1),
                stock: 1,
                created_at: at,
                updated_at: at,
              })
              .returning('id')
              .executeTakeFirstOrThrow();
            ids.push(row.id);
          }
        });
        after(() => t?.close());

        it('walks the ranked candidates by cursor, best first, none twice, and counts every match', async () => {
          const items = await walk('q=lamp&count=exact');
          assert.equal(items.length, candidates || LAMPS.length);
          assert.equal(new Set(items.map((item) => item.id)).size, items.length);
          const scores = items.map((item) => item._search.score);
          assert.deepEqual(
            scores,
            [...scores].sort((a, b) => b - a),
          );
          assert.equal((await list('q=lamp&count=exact')).pagination.total, LAMPS.length);
          assert.equal((await list('q=lamp&count=estimated')).pagination.total, LAMPS.length);
          if (candidates === 0)
            assert.deepEqual(
              items.slice(0, 3).map((item) => item.category),
              ['lights', 'lights', 'lights'],
            );
        });

        it('takes its candidates among the rows that pass the filters', async () => {
          const items = await walk('q=lamp&category=lights');
          assert.deepEqual(
            items.map((item) => item.id).sort((a, b) => a - b),
            ids.slice(3),
          );
        });

        it('orders every match by another sort', async () => {
          const items = await walk('q=lamp&sort=-price');
          assert.deepEqual(
            items.map((item) => item.id),
            [...ids].reverse(),
          );
        });
      },
    );
  }
}
