import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'csv-parse/sync';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';
import { escapeFormula, unescapeFormula } from './csv-cells.ts';

describe('CSV cells', () => {
  it('prefix a formula with a quote, and import strips exactly that quote again', () => {
    for (const text of ['=SUM(A1)', '+1', '-2', '@x', '\tx', '\rx'])
      assert.equal(unescapeFormula(escapeFormula(text)), text);
    assert.equal(escapeFormula('=1+1'), "'=1+1");
    assert.equal(escapeFormula('plain'), 'plain');
    assert.equal(unescapeFormula("'plain"), "'plain");
  });
});

for (const dialect of DIALECTS) {
  describe(`list exports (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    const COUNT = 230;
    before(async () => {
      t = await startTestServer(dialect);
      const operations = Array.from({ length: COUNT }, (_, i) => ({
        op: 'create',
        data: {
          name: i === 7 ? '=HYPERLINK("http://evil")' : `Item ${i}`,
          category: 'export',
          price: (i % 50) + 1,
          stock: i,
        },
      }));
      const res = await t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } });
      assert.equal(res.status, 200, res.text);
    });
    after(() => t?.close());

    const download = (path: string, headers: Record<string, string> = {}) =>
      fetch(`${t.url}${path}`, { headers: { authorization: `Bearer ${t.adminToken}`, ...headers } });

    it('streams every matching row of more than one page as CSV, in the list order, with formulas escaped', async () => {
      const res = await download('/api/v2/products?category=export&sort=-price&format=csv&limit=5&page=3');
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type')!, /^text\/csv/);
      assert.equal(res.headers.get('content-disposition'), 'attachment; filename="products.csv"');
      const rows = parse(await res.text(), { columns: true }) as Record<string, string>[];
      assert.equal(rows.length, COUNT);
      assert.deepEqual(Object.keys(rows[0]!).slice(0, 10), [
        'id',
        'name',
        'category',
        'price',
        'stock',
        'image',
        'description',
        'sku',
        'createdAt',
        'updatedAt',
      ]);
      const pages: Record<string, unknown>[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const json = await t.request('GET', `/api/v2/products?category=export&sort=-price&limit=100&page=${page}`);
        pages.push(...json.body.data);
      }
      assert.deepEqual(
        rows.map((row) => Number(row.id)),
        pages.map((item) => item.id),
      );
      const evil = rows.find((row) => row.name!.includes('HYPERLINK'))!;
      assert.equal(evil.name, `'=HYPERLINK("http://evil")`);
    });

    it('writes whole items as NDJSON when Accept asks, and format= wins over Accept', async () => {
      const res = await download('/api/v2/products?category=export&stock[lt]=150', { accept: 'application/x-ndjson' });
      assert.equal(res.status, 200);
      const lines = (await res.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      assert.equal(lines.length, 150);
      assert.ok(lines[0]._links.self.href);
      assert.deepEqual(
        lines.map((l) => l.stock),
        Array.from({ length: 150 }, (_, i) => i),
      );
      const csv = await download('/api/v2/products?category=export&format=csv&fields=price,name', {
        accept: 'application/x-ndjson',
      });
      const rows = parse(await csv.text(), { columns: true }) as Record<string, string>[];
      assert.deepEqual(Object.keys(rows[0]!), ['id', 'price', 'name']);
    });

    it('exports nested lists too (a user s posts), and stays a page list in v1', async () => {
      const user = await t.createUser();
      const operations = Array.from({ length: 120 }, (_, i) => ({
        op: 'create',
        data: { title: `P${i}`, content: 'body' },
      }));
      const made = await t.request('POST', '/api/v2/posts/batch', { token: user.token, body: { operations } });
      assert.equal(made.status, 200, made.text);
      const res = await download(`/api/v2/users/${user.id}/posts?format=ndjson`);
      assert.equal(res.status, 200);
      assert.equal((await res.text()).trim().split('\n').length, 120);
      const v1 = await t.request('GET', '/api/v1/products?category=export', { headers: { accept: 'text/csv' } });
      assert.equal(v1.status, 200);
      assert.equal(v1.body.data.length, 20);
    });

    it('answers an unknown format with 422', async () => {
      const res = await t.request('GET', '/api/v2/products?format=xlsx');
      assert.equal(res.status, 422, res.text);
    });
  });
}
