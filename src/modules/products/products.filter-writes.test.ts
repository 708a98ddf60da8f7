import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

for (const dialect of DIALECTS) {
  describe(`products written by filter (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect);
      const operations = [
        ...Array.from({ length: 5 }, (_, i) => ({
          op: 'create',
          data: { name: `Lamp ${i}`, category: 'lamps', price: 10 + i, stock: i },
        })),
        ...Array.from({ length: 3 }, (_, i) => ({
          op: 'create',
          data: { name: `Desk ${i}`, category: 'desks', price: 100, stock: 1 },
        })),
      ];
      const res = await t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } });
      assert.equal(res.status, 200, res.text);
    });
    after(() => t?.close());

    const write = (method: 'PATCH' | 'DELETE', query: string, options: { body?: unknown; prefer?: string } = {}) =>
      t.request(method, `/api/v2/products?${query}`, {
        token: t.adminToken,
        ...(options.body !== undefined ? { body: options.body } : {}),
        ...(options.prefer ? { headers: { prefer: options.prefer } } : {}),
      });
    const stockOf = async (category: string) =>
      (
        await t.server.db
          .selectFrom('products')
          .select('stock')
          .where('category', '=', category)
          .orderBy('id')
          .execute()
      ).map((r) => r.stock);

    it('updates every matching row in one request, each with its event, and counts unchanged rows without an event', async () => {
      await write('PATCH', 'category=lamps&stock[lt]=2', { body: { stock: 1 }, prefer: 'max-affected=5' });
      const start = await feedEnd(t);
      const res = await write('PATCH', 'category=lamps', { body: { stock: 1 }, prefer: 'max-affected=5' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { affected: 5 });
      assert.deepEqual(await stockOf('lamps'), [1, 1, 1, 1, 1]);
      const events = await eventsAfter(t, start, 3);
      // Lamps 0 and 1 already had stock 1: they count, and emit nothing.
      assert.equal(events.filter((e) => e.type === 'product.updated').length, 3);
    });

    it('answers 428 without Prefer: max-affected, and 409 with the count when more rows match; nothing changes', async () => {
      const missing = await write('PATCH', 'category=desks', { body: { stock: 9 } });
      assert.equal(missing.status, 428, missing.text);
      assert.equal(missing.body.error.code, 'PRECONDITION_REQUIRED');
      const over = await write('PATCH', 'category=desks', { body: { stock: 9 }, prefer: 'max-affected=2' });
      assert.equal(over.status, 409, over.text);
      assert.deepEqual(over.body.error.details, [{ field: 'Prefer', message: '3 rows match; max-affected is 2' }]);
      assert.deepEqual(await stockOf('desks'), [1, 1, 1]);
    });

    it('answers a dry run with the count, needing no Prefer, and changes nothing', async () => {
      const res = await write('DELETE', 'category=desks&dryRun=true');
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { affected: 3 });
      assert.equal((await stockOf('desks')).length, 3);
    });

    it('refuses a write without a filter (page, limit and sort do not count) with 422', async () => {
      const res = await write('DELETE', 'page=1&limit=5&sort=price', { prefer: 'max-affected=100' });
      assert.equal(res.status, 422, res.text);
      const bad = await write('PATCH', 'category=desks', { body: { price: -4 }, prefer: 'max-affected=3' });
      assert.equal(bad.status, 422, bad.text);
    });

    it('deletes every matching row by a grammar filter, in one transaction', async () => {
      const res = await write('DELETE', 'category=desks&price[gte]=100', { prefer: 'max-affected=3' });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { affected: 3 });
      assert.deepEqual(await stockOf('desks'), []);
    });

    it('is for admins, under v2', async () => {
      const user = await t.createUser();
      const res = await t.request('DELETE', '/api/v2/products?category=lamps', {
        token: user.token,
        headers: { prefer: 'max-affected=9' },
      });
      assert.equal(res.status, 403, res.text);
      // v1 serves the path, not these operations: 405 naming v1's methods, under its own prefix and
      // where `/api` negotiated v1 (the route is in that table, for v2) alike.
      for (const [url, headers] of [
        ['/api/v1/products?category=lamps', {}],
        ['/api/products?category=lamps', { 'api-version': '1' }],
      ] as const) {
        const v1 = await t.request('DELETE', url, {
          token: t.adminToken,
          headers: { prefer: 'max-affected=9', ...headers },
        });
        assert.equal(v1.status, 405, v1.text);
        assert.equal(v1.headers.get('allow'), 'GET, HEAD, POST');
      }
      const negotiated = await t.request('DELETE', '/api/products?category=lamps', {
        token: t.adminToken,
        headers: { prefer: 'max-affected=9', 'api-version': '2' },
      });
      assert.equal(negotiated.status, 200, negotiated.text);
    });
  });
}
