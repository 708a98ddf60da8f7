import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { errorCodes, gql, GRAPHQL_TEST_ENV } from '../../../test/support/graphql-test-client.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer, type TestResponse } from '../../../test/support/test-server.ts';

interface Detail {
  field: string;
  message: string;
}
type Highlight = { field: string; text: string };

const detailsOf = (res: TestResponse): Detail[] =>
  (res.body.errors ?? []).flatMap((e: { extensions?: { details?: Detail[] } }) => e.extensions?.details ?? []);

const CREATE = 'mutation ($input: CreateProductInput!) { createProduct(input: $input) { id } }';

/** DECISIONS §14 in GraphQL on products: `productsAggregate` (REST's GET /products/aggregate) and `Product.highlights`. */
for (const dialect of DIALECTS) {
  describe(`productsAggregate and Product.highlights in GraphQL (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, GRAPHQL_TEST_ENV);
      const products = [
        { name: '<script>alert(1)</script> Oak table', category: 'home', price: 120.1, stock: 3 },
        { name: 'Pine table', category: 'home', price: 80.2, stock: 5, description: 'A table & "four" legs' },
        { name: 'Desk lamp', category: 'office', price: 19.99, stock: 10, description: 'Bright by any table' },
        { name: 'Fountain pen', category: 'office', price: 5, stock: 0 },
      ];
      for (const input of products) {
        const res = await gql(t, CREATE, { variables: { input }, token: t.adminToken });
        assert.equal(res.body.errors, undefined, res.text);
      }
    });
    after(() => t?.close());

    const aggregate = async (args: string, selection: string) => {
      const res = await gql(t, `{ productsAggregate${args ? `(${args})` : ''} { ${selection} } }`);
      assert.equal(res.body.errors, undefined, `${args}: ${res.text}`);
      return res.body.data.productsAggregate;
    };

    it('aggregates anonymously what REST’s v2 aggregate answers, filter and search included', async () => {
      const graphql = await aggregate(
        'filter: { price: { gte: 5.01 } }, search: "table", groupBy: ["category"], measures: ["sum(price)", "avg(stock)", "max(price)"], sort: ["-sum(price)"]',
        'groups data { key { category createdAt } count sum { price stock } avg { stock } max { price } min { price } }',
      );
      const rest = await t.request(
        'GET',
        '/api/v2/products/aggregate?price[gte]=5.01&q=table&groupBy=category&measures=sum(price),avg(stock),max(price)&sort=-sum(price)',
      );
      assert.equal(rest.status, 200, rest.text);
      assert.equal(graphql.groups, rest.body.groups);
      assert.deepEqual(graphql.data, [
        {
          key: { category: 'home', createdAt: null },
          count: 2,
          sum: { price: 200.3, stock: null },
          avg: { stock: 4 },
          max: { price: 120.1 },
          min: null,
        },
        {
          key: { category: 'office', createdAt: null },
          count: 1,
          sum: { price: 19.99, stock: null },
          avg: { stock: 10 },
          max: { price: 19.99 },
          min: null,
        },
      ]);
      assert.deepEqual(
        graphql.data.map((g: { key: { category: string }; count: number }) => [g.key.category, g.count]),
        rest.body.data.map((g: { key: { category: string }; count: number }) => [g.key.category, g.count]),
      );
      const year = new Date().getUTCFullYear();
      const byYear = await aggregate('groupBy: ["createdAt:year"]', 'data { key { createdAt } count }');
      assert.deepEqual(byYear.data, [{ key: { createdAt: `${year}-01-01T00:00:00.000Z` }, count: 4 }]);
    });

    it('names the argument of an unknown measure, group, bucket, sort key or search in a BAD_USER_INPUT', async () => {
      const cases: [string, string][] = [
        ['measures: ["sum(amount)"]', 'measures'],
        ['groupBy: ["created_at:month"]', 'groupBy'],
        ['groupBy: ["createdAt:fortnight"]', 'groupBy'],
        ['sort: ["name"]', 'sort'],
        ['search: "-table"', 'search'],
        ['filter: { price: { gte: 1.999 } }', 'filter.price.gte'],
      ];
      for (const [args, field] of cases) {
        const res = await gql(t, `{ productsAggregate(${args}) { groups } }`);
        assert.deepEqual(errorCodes(res), ['BAD_USER_INPUT'], `${args}: ${res.text}`);
        assert.ok(
          detailsOf(res).some((d) => d.field === field),
          `${args}: ${res.text}`,
        );
      }
    });

    it('highlights a searched list’s fields as REST’s _search.highlights: HTML-escaped, matches in <mark>', async () => {
      const res = await gql(
        t,
        '{ products(search: "table") { id name highlights(fields: ["name", "description"]) { field text } } }',
      );
      assert.equal(res.body.errors, undefined, res.text);
      const rest = await t.request('GET', '/api/v2/products?q=table&highlight=name,description');
      const expected = (rest.body.data as { id: number; _search: { highlights: Record<string, string> } }[]).map(
        (item) => ({
          id: String(item.id),
          highlights: ['name', 'description'].map((field) => ({ field, text: item._search.highlights[field] ?? '' })),
        }),
      );
      const found = res.body.data.products as { id: string; name: string; highlights: Highlight[] }[];
      assert.deepEqual(
        found.map(({ id, highlights }) => ({ id, highlights })),
        expected,
      );
      const oak = found.find((p) => p.name.includes('Oak'))!;
      assert.deepEqual(oak.highlights[0], {
        field: 'name',
        text: '&lt;script&gt;alert(1)&lt;/script&gt; Oak <mark>table</mark>',
      });
      const pine = found.find((p) => p.name === 'Pine table')!;
      assert.equal(pine.highlights[1]!.text, 'A <mark>table</mark> &amp; &quot;four&quot; legs');
    });

    it('answers null highlights outside a searched list, and names an unknown field', async () => {
      const plain = await gql(t, '{ products(limit: 1) { highlights(fields: ["name"]) { text } } }');
      assert.deepEqual(plain.body.data, { products: [{ highlights: null }] });
      const one = await gql(t, '{ product(id: "1") { highlights(fields: ["name"]) { text } } }');
      assert.deepEqual(one.body.data, { product: { highlights: null } });
      const unknown = await gql(t, '{ products(search: "table") { highlights(fields: ["price"]) { text } } }');
      assert.deepEqual(errorCodes(unknown), ['BAD_USER_INPUT'], unknown.text);
      assert.ok(
        detailsOf(unknown).some((d) => d.field === 'highlights.fields'),
        unknown.text,
      );
    });

    it('reads the highlights of a whole list in one statement, aliases, fragments and variables merged', async () => {
      const query = `query ($fields: [String!]!) {
        products(search: "table or lamp") {
          name
          a: highlights(fields: ["name"]) { text }
          ... on Product { b: highlights(fields: $fields) { field text } }
          ...More
        }
      }
      fragment More on Product { c: highlights(fields: ["category"]) { field } }`;
      const without = await statementsOf(t.server.db, () => gql(t, '{ products(search: "table or lamp") { name } }'));
      const { result, statements } = await statementsOf(t.server.db, () =>
        gql(t, query, { variables: { fields: ['description', 'name'] } }),
      );
      assert.equal(result.body.errors, undefined, result.text);
      const items = result.body.data.products as { name: string; a: Highlight[]; b: Highlight[]; c: Highlight[] }[];
      assert.equal(items.length, 3);
      assert.deepEqual(
        items.map((p) => p.b.map((h) => h.field)),
        items.map(() => ['description', 'name']),
      );
      assert.ok(items.every((p) => p.a[0]!.text.includes('<mark>') && p.c[0]!.field === 'category'));
      assert.equal(statements.length, without.statements.length + 1, statements.join('\n'));
    });

    it('charges a searched list more than the same list without a search', async () => {
      const remaining = async (query: string) => Number((await gql(t, query)).headers.get('ratelimit-remaining'));
      const first = await remaining('{ products { id } }');
      const afterSearched = await remaining('{ products(search: "table") { id } }');
      const afterPlain = await remaining('{ products { id } }');
      assert.ok(first - afterSearched > afterSearched - afterPlain, `${first} ${afterSearched} ${afterPlain}`);
      assert.equal(afterSearched - afterPlain, 1);
    });
  });
}
