import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DIALECTS } from '../../../test/support/dialects.ts';
import { eventsAfter, feedEnd } from '../../../test/support/events.ts';
import { statementsOf } from '../../../test/support/statements-of.ts';
import { startTestServer, type TestServer } from '../../../test/support/test-server.ts';

interface Revision {
  rev: number;
  op: string;
  requestId: string | null;
  actor: { type: string; id: number | null };
  changes: { op: string; path: string; value?: unknown }[];
}

/**
 * A write by filter's `PATCH` is the products' list update (products.writes-many.ts), the single
 * `PATCH`'s of many ids: its rows, their events and their revisions in a few statements per thousand rows,
 * each row's event and revision those its single `PATCH` writes, all or nothing.
 */
for (const dialect of DIALECTS) {
  describe(`products updated as a list by a write by filter (${dialect.name})`, { skip: dialect.skip }, () => {
    let t: TestServer;
    before(async () => {
      t = await startTestServer(dialect, { RATE_LIMIT_MAX: '100000000' });
    });
    after(() => t?.close());

    const createIn = async (category: string, count: number, extra: Record<string, unknown> = {}) => {
      const operations = Array.from({ length: count }, (_, i) => ({
        op: 'create',
        data: { name: `${category} ${i}`, category, price: 10, stock: 1, ...extra },
      }));
      const res = await t.request('POST', '/api/v2/products/batch', { token: t.adminToken, body: { operations } });
      assert.equal(res.status, 200, res.text);
      return (res.body.results as { id: number }[]).map((r) => r.id);
    };
    const patchWhere = (query: string, body: unknown, maxAffected: number) =>
      t.request('PATCH', `/api/v2/products?${query}`, {
        token: t.adminToken,
        body,
        headers: { prefer: `max-affected=${maxAffected}` },
      });
    const revisionsOf = async (id: number): Promise<Revision[]> => {
      const res = await t.request('GET', `/api/v2/products/${id}/revisions?limit=100`, { token: t.adminToken });
      assert.equal(res.status, 200, res.text);
      return res.body.data as Revision[];
    };
    const stocksOf = async (ids: number[]) =>
      (await t.server.db.selectFrom('products').select('stock').where('id', 'in', ids).orderBy('id').execute()).map(
        (row) => row.stock,
      );

    it('writes 50 rows, their events and their revisions in a bounded number of statements (PostgreSQL)', async () => {
      const ids = await createIn('fifty', 50);
      const start = await feedEnd(t);
      const { result: res, statements } = await statementsOf(t.server.db, () =>
        patchWhere('category=fifty', { stock: 42 }, 50),
      );
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { affected: 50 });
      assert.deepEqual(await stocksOf(ids), Array(50).fill(42));
      const events = (await eventsAfter(t, start, 50)).filter((e) => e.type === 'product.updated');
      assert.deepEqual(
        events.map((e) => e.data.id).sort((a, b) => a - b),
        ids,
      );
      for (const id of ids) assert.equal((await revisionsOf(id))[0]!.op, 'update', `the revision of ${id}`);
      // The read of the matches, then per thousand rows: the lock, the update, the events' locks, the events,
      // the revisions; with the transaction's own and the writer key. The per-row path ran about 8 a row (11 here).
      if (dialect.name === 'postgres') assert.ok(statements.length <= 12, statements.join('\n'));
    });

    it("writes each row's event and revision as its single PATCH of an equal change does", async () => {
      const set = await createIn('equal-set', 3, { description: 'old' });
      const [single] = await createIn('equal-single', 1, { description: 'old' });
      const start = await feedEnd(t);
      const change = { stock: 7, description: 'new', price: 12.5 };
      assert.equal((await patchWhere('category=equal-set', change, 3)).status, 200);
      const alone = await t.request('PATCH', `/api/v2/products/${single}`, { token: t.adminToken, body: change });
      assert.equal(alone.status, 200, alone.text);
      const events = await eventsAfter(t, start, 4);
      assert.deepEqual(
        events.map((e) => [e.type, e.data.id]),
        [...set, single].map((id) => ['product.updated', id]),
        'one product.updated each, the set in id order',
      );
      // Each event's data is the row as an admin's GET /api/v2 shows it after the write, as the single one's.
      for (const event of events) {
        const read = await t.request('GET', `/api/v2/products/${event.data.id}`, { token: t.adminToken });
        assert.deepEqual(event.data, read.body);
      }
      const changesOf = async (id: number) => {
        const [latest, created] = await revisionsOf(id);
        assert.equal(created!.op, 'create');
        return {
          op: latest!.op,
          actor: latest!.actor,
          changes: latest!.changes.filter((c) => c.path !== '/updatedAt'),
        };
      };
      const expected = await changesOf(single!);
      assert.ok(expected.changes.length === 3, JSON.stringify(expected));
      for (const id of set) assert.deepEqual(await changesOf(id), expected, `product ${id}`);
    });

    it('leaves an unchanged row as it is: counted, no event, no revision, no new updatedAt', async () => {
      const ids = await createIn('unchanged', 3);
      const first = await t.request('PATCH', `/api/v2/products/${ids[0]}`, { token: t.adminToken, body: { stock: 5 } });
      assert.equal(first.status, 200, first.text);
      const before = await t.request('GET', `/api/v2/products/${ids[0]}`, { token: t.adminToken });
      const start = await feedEnd(t);
      const res = await patchWhere('category=unchanged', { stock: 5 }, 3);
      assert.deepEqual(res.body, { affected: 3 });
      const events = await eventsAfter(t, start, 2);
      assert.deepEqual(
        events.map((e) => e.data.id).sort((a, b) => a - b),
        ids.slice(1),
      );
      assert.equal((await revisionsOf(ids[0]!)).length, 2);
      const after = await t.request('GET', `/api/v2/products/${ids[0]}`, { token: t.adminToken });
      assert.equal(after.body.updatedAt, before.body.updatedAt);
    });

    it("refuses a sku another product has with the single PATCH's 409 and writes nothing at all", async () => {
      await createIn('sku-owner', 1, { sku: 'LIST-TAKEN' });
      const ids = await createIn('sku-set', 3);
      const start = await feedEnd(t);
      const res = await patchWhere('category=sku-set', { stock: 99, sku: 'LIST-TAKEN' }, 3);
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.message, 'Another product has this sku');
      assert.deepEqual(await stocksOf(ids), [1, 1, 1]);
      assert.deepEqual(await eventsAfter(t, start, 0), []);
      for (const id of ids) assert.equal((await revisionsOf(id)).length, 1);
    });

    it('leaves trashed rows out, and keeps the counters and search documents (triggers) with the rows', async () => {
      const ids = await createIn('trash-set', 4);
      assert.equal((await t.request('DELETE', `/api/v2/products/${ids[0]}`, { token: t.adminToken })).status, 204);
      const res = await patchWhere('category=trash-set', { category: 'moved-set', name: 'Zanzibar lamp' }, 3);
      assert.deepEqual(res.body, { affected: 3 });
      const moved = await t.request('GET', '/api/v2/products?category=moved-set', { token: t.adminToken });
      assert.deepEqual(
        (moved.body.data as { id: number }[]).map((p) => p.id),
        ids.slice(1),
      );
      // The total of a category filter is read from the counters the triggers keep.
      assert.equal(moved.body.pagination.total, 3);
      const left = await t.request('GET', '/api/v2/products?category=trash-set', { token: t.adminToken });
      assert.equal(left.body.pagination.total, 0);
      const found = await t.request('GET', '/api/v2/products?q=zanzibar', { token: t.adminToken });
      assert.deepEqual(
        (found.body.data as { id: number }[]).map((p) => p.id).sort((a, b) => a - b),
        ids.slice(1),
      );
      const trashed = await t.request('GET', `/api/v2/products/${ids[0]}?trashed=include`, { token: t.adminToken });
      assert.equal(trashed.body.category, 'trash-set');
    });

    it('writes more than a chunk of rows (1,000) in one request', { timeout: 120_000 }, async () => {
      const ids = [...(await createIn('chunked', 1000)), ...(await createIn('chunked', 5))];
      const start = await feedEnd(t);
      const res = await patchWhere('category=chunked', { stock: 3 }, 1005);
      assert.deepEqual(res.body, { affected: 1005 });
      assert.deepEqual(await stocksOf(ids), Array(1005).fill(3));
      const events = await eventsAfter(t, start, 1005);
      assert.equal(new Set(events.map((e) => e.data.id)).size, 1005);
    });
  });
}
