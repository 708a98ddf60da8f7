import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

/** A fixed corpus: plurals, a phrase, a prefix, words to exclude, alternatives, HTML in a name. */
const CORPUS: [name: string, category: string, description: string | null][] = [
  ['Wooden Chair', 'furniture', 'A sturdy chair made of oak for the dining room'],
  ['Office Chairs Set', 'furniture', 'Two ergonomic chairs with wheels'],
  ['Steel Table', 'furniture', 'A table of brushed steel, no chair included'],
  ['Cotton Blanket', 'home', 'A warm blanket for cold evenings by the fire'],
  ['Coffee Mug', 'kitchen', 'A ceramic mug for hot coffee and tea'],
  ['Teapot', 'kitchen', 'Brew loose leaf tea in this ceramic teapot'],
  ['<script>alert(1)</script> Lamp', 'home', 'A lamp with a "quoted" & <b>bold</b> description'],
  ['Keyboard', 'electronics', 'A mechanical keyboard with quiet switches'],
  ['Running Shoes', 'sports', 'Light shoes for running on the road'],
  ['Dining Room Table', 'furniture', null],
];

/** What each query finds, by the corpus's positions (1-based): the same on both databases. */
const MATCHES: [q: string, positions: number[]][] = [
  ['chairs', [1, 2, 3]],
  ['chair', [1, 2, 3]],
  ['CHAIR furniture', [1, 2, 3]],
  ['"dining room"', [1, 10]],
  ['keyb*', [8]],
  ['"dining ro"*', [1, 10]],
  ['chair -steel', [1, 2]],
  ['teapot or mug', [5, 6]],
  ['ceramic tea', [5, 6]],
  ['furniture', [1, 2, 3, 10]],
  ['runs', [9]],
  ['the', []],
  ['lamp', [7]],
  ['blanket or -nothing chair', [1, 2, 3, 4]],
];

type Item = { id: number; name?: string; _search?: { score: number; highlights?: Record<string, string> } };
type Page = { data: Item[]; pagination: Record<string, unknown>; suggestion?: string | null };

/** DECISIONS §14 on the products list: `q`, relevance, `_search`, highlights, suggestions, on both databases. */
for (const dialect of DIALECTS) {
  describe(`products full-text search (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    let ids: number[];

    const list = async (query: string, prefix = '/api/v2'): Promise<Page> => {
      const res = await t.request('GET', `${prefix}/products?${query}`);
      assert.equal(res.status, 200, `${prefix} ${query}: ${res.text}`);
      return res.body as Page;
    };
    const found = async (q: string) =>
      (await list(`limit=100&q=${encodeURIComponent(q)}`)).data.map((item) => item.id).sort((a, b) => a - b);

    before(async () => {
      t = await startTestServer(dialect);
      const at = new Date(Date.UTC(2026, 0, 1)).toISOString();
      const rows = await t.server.db
        .insertInto('products')
        .values(
          CORPUS.map(([name, category, description], i) => ({
            name,
            category,
            description,
            price_cents: 100 * (i + 1),
            stock: i % 3,
            created_at: at,
            updated_at: at,
          })),
        )
        .returning('id')
        .execute();
      ids = rows.map((row) => row.id);
    });
    after(() => t?.close());

    it('finds the same products for each query: stemming, phrase, prefix, exclusion, or', async () => {
      for (const [q, positions] of MATCHES) {
        assert.deepEqual(
          await found(q),
          positions.map((p) => ids[p - 1]!).sort((a, b) => a - b),
          q,
        );
      }
    });

    it('orders by relevance, best first, a name match above a description match, each item with its score', async () => {
      const page = await list('q=chair');
      const scores = page.data.map((item) => item._search!.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
      assert.equal(page.data.at(-1)!.id, ids[2], 'the steel table only says chair in its description');
      assert.ok(scores.every((score) => score > 0));
      const relevance = await list('q=chair&sort=relevance');
      assert.deepEqual(
        relevance.data.map((item) => item.id),
        page.data.map((item) => item.id),
      );
    });

    it('takes a sort of the list instead of relevance, and combines with filters and the seed parameters', async () => {
      const byPrice = await list('q=chair&sort=-price');
      assert.deepEqual(
        byPrice.data.map((item) => item.id),
        [ids[2], ids[1], ids[0]],
      );
      assert.deepEqual(
        (await list('q=chair&price[lte]=2')).data.map((item) => item.id).sort(),
        [ids[0], ids[1]].sort(),
      );
      assert.deepEqual(
        (await list('q=furniture&search=table&category=furniture')).data.map((item) => item.id).sort(),
        [ids[2], ids[9]].sort(),
      );
      assert.deepEqual(
        (await list('q=chair&sort=-price', '/api/v1')).data.map((item) => item.id),
        [ids[2], ids[1], ids[0]],
      );
    });

    it('counts the matches in every count mode', async () => {
      assert.equal((await list('q=furniture&limit=2')).pagination.total, 4);
      assert.equal((await list('q=furniture&limit=2&count=estimated')).pagination.total, 4);
      const none = await list('q=furniture&limit=2&count=none');
      assert.equal(none.pagination.total, undefined);
      assert.equal(none.pagination.hasNext, true);
    });

    it('walks a relevance-ordered list by cursor without repeating or skipping an item', async () => {
      const all = (await list('q=furniture&limit=100')).data.map((item) => item.id);
      const walked: number[] = [];
      let page = await list('q=furniture&limit=1');
      for (;;) {
        walked.push(...page.data.map((item) => item.id));
        const cursor = page.pagination.nextCursor as string | null;
        if (!cursor) break;
        page = await list(`q=furniture&limit=1&cursor=${cursor}`);
      }
      assert.deepEqual(walked, all);
      const cursor = (await list('q=furniture&limit=1')).pagination.nextCursor as string;
      const other = await t.request('GET', `/api/v2/products?q=chair&limit=1&cursor=${cursor}`);
      assert.equal(other.status, 422, 'a cursor of another q');
    });

    it('highlights the searched fields HTML-escaped, matches in <mark>', async () => {
      const page = await list('q=lamp&highlight=name,description');
      const { highlights } = page.data[0]!._search!;
      assert.equal(highlights!.name, '&lt;script&gt;alert(1)&lt;/script&gt; <mark>Lamp</mark>');
      assert.equal(
        highlights!.description,
        'A <mark>lamp</mark> with a &quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt; description',
      );
      const chairs = await list('q=chairs&highlight=name');
      assert.match(chairs.data.find((item) => item.id === ids[1])!._search!.highlights!.name!, /<mark>Chairs<\/mark>/);
    });

    it('suggests the closest indexed words for a query that matches nothing', async () => {
      const page = await list('q=chiar');
      assert.deepEqual(page.data, []);
      assert.equal(page.suggestion, 'chair');
      assert.equal((await list('q=keybaord%20-steel')).suggestion, 'keyboard -steel');
      assert.equal((await list('q=zzzzzzzz')).suggestion, null);
      assert.equal((await list('q=chair')).suggestion, undefined);
    });

    it('keeps the index in step with writes', async () => {
      const created = await t.request('POST', '/api/v2/products', {
        token: t.adminToken,
        body: { name: 'Walnut Bookcase', category: 'furniture', price: 80, stock: 1, description: 'Tall shelves' },
      });
      assert.equal(created.status, 201, created.text);
      const id = created.body.id as number;
      assert.deepEqual(await found('bookcase'), [id]);
      await t.request('PATCH', `/api/v2/products/${id}`, { token: t.adminToken, body: { name: 'Walnut Cabinet' } });
      assert.deepEqual(await found('bookcase'), []);
      assert.deepEqual(await found('cabinet'), [id]);
      await t.request('DELETE', `/api/v2/products/${id}`, { token: t.adminToken });
      assert.deepEqual(await found('cabinet'), []);
    });

    it('keeps the search in the database: a GIN index of the side table (PostgreSQL), an FTS5 table (SQLite)', async () => {
      const { rows } =
        dialect.name === 'postgres'
          ? await sql<{ name: string }>`select indexdef as name from pg_indexes
              where indexname = 'product_search_document_idx'`.execute(t.server.db)
          : await sql<{ name: string }>`select sql as name from sqlite_master where name = 'products_fts'`.execute(
              t.server.db,
            );
      assert.match(
        rows[0]?.name ?? '',
        dialect.name === 'postgres' ? /ON public\.product_search USING gin \(document\)/ : /fts5/,
      );
    });

    it(
      'reads and writes products without their vector (PostgreSQL): it lives in a side table the triggers keep',
      {
        skip: dialect.name !== 'postgres',
      },
      async () => {
        const { rows: vectors } = await sql<{ table: string; column: string }>`
        select table_name as table, column_name as column from information_schema.columns
        where table_schema = current_schema() and table_name in ('products', 'posts') and data_type = 'tsvector'`.execute(
          t.server.db,
        );
        assert.deepEqual(vectors, []);
        const read = await t.request('GET', `/api/v2/products/${ids[0]}`);
        assert.deepEqual(
          Object.keys(read.body as object).filter((key) => /search|vector|document/i.test(key)),
          [],
        );

        const created = await t.request('POST', '/api/v2/products', {
          token: t.adminToken,
          body: { name: 'Linen Curtain', category: 'home', price: 30, stock: 5, description: 'Sheer' },
        });
        assert.equal(created.status, 201, created.text);
        const id = created.body.id as number;
        const version = async () =>
          (
            await sql<{ version: string }>`select xmin::text as version from product_search where id = ${id}`.execute(
              t.server.db,
            )
          ).rows[0]?.version;
        const first = await version();
        assert.ok(first, 'the insert gave the product its document');
        const words = async () =>
          (
            await sql<{ word: string }>`select word from product_search_words where word in ('linen', 'voile')
              order by word`.execute(t.server.db)
          ).rows.map((row) => row.word);
        // Taken out of the vocabulary, a word comes back only when a searched column is written anew.
        await sql`delete from product_search_words where word = 'linen'`.execute(t.server.db);
        // A write of no searched column leaves the document alone: an order's stock change costs no vector.
        await t.request('PATCH', `/api/v2/products/${id}`, { token: t.adminToken, body: { stock: 4, price: 31 } });
        assert.equal(await version(), first);
        assert.deepEqual(await words(), [], 'a stock and price write tokenises no text for the vocabulary');
        await t.server.db.updateTable('products').set({ category: 'home' }).where('id', '=', id).execute();
        assert.equal(await version(), first, 'a searched column written with its own value');
        assert.deepEqual(await words(), []);
        await t.server.db.updateTable('products').set({ description: 'Sheer voile' }).where('id', '=', id).execute();
        assert.notEqual(await version(), first);
        assert.deepEqual(await found('voile'), [id]);
        assert.deepEqual(await words(), ['linen', 'voile'], 'a write of new text adds the words of the row');
        await t.request('DELETE', `/api/v2/products/${id}`, { token: t.adminToken });
        assert.equal(await version(), undefined, 'the document goes with its product');
        assert.deepEqual(await found('curtain'), []);
      },
    );

    it('answers hostile search text with a normal page or a 422 naming the parameter, never a 5xx', async () => {
      const texts = [
        '"',
        '*',
        'NEAR(',
        'name:chair',
        'chair^2',
        '((chair',
        'chair)',
        'AND',
        'chair AND OR NOT',
        '\u0000',
        'chair\u0000',
        "'; drop table products; --",
        '-',
        '""*',
        'a:* & !b',
        '-chair',
        'x'.repeat(10_000),
      ];
      // A lone surrogate has no UTF-8 form: sent as the bytes one would have, and as a bad percent escape.
      const encoded = [...texts.map(encodeURIComponent), '%ED%A0%80chair', '%E0%A4%A', '%FF'];
      for (const q of encoded) {
        for (const extra of ['', '&highlight=name,category,description']) {
          const res = await t.request('GET', `/api/v2/products?q=${q}${extra}`);
          assert.ok([200, 400, 414, 422].includes(res.status), `${q.slice(0, 40)}: ${res.status} ${res.text}`);
          if (res.status === 422) assert.equal(res.body.error.details[0].field, 'q', res.text);
        }
      }
      const long = await t.request('GET', `/api/v2/products?q=${'chair '.repeat(34)}`);
      assert.equal(long.status, 422, 'longer than 200 characters');
      assert.equal(long.body.error.details[0].field, 'q');
      const many = await t.request('GET', `/api/v2/products?q=${'chair '.repeat(17)}`);
      assert.equal(many.status, 422, 'more than 16 words');
      const unknownField = await t.request('GET', '/api/v2/products?q=chair&highlight=price');
      assert.equal(unknownField.status, 422);
      assert.equal(unknownField.body.error.details[0].field, 'highlight');
      const withoutQ = await t.request('GET', '/api/v2/products?highlight=name');
      assert.equal(withoutQ.status, 422);
    });
  });
}
